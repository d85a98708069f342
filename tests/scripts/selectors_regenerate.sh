#!/usr/bin/env bash
# Regenerates committed selector headers with scripts/deploy_selectors.sh (one `ktune deploy`
# each) and diffs them with the committed copies: a header edited by hand, a recipe line that
# does not say how a header was made, or a change in prune/train/codegen fails it; so does a
# committed header with no recipe line at all (kept by hand).
#   tests/scripts/selectors_regenerate.sh RECIPES KTUNE HEADER_REGEX
set -euo pipefail
recipes=$1 ktune=$2 regex=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
for committed in "$(dirname "$recipes")"/selectors/*.hpp; do
  if ! awk -F'|' -v header="$(basename "$committed")" '{ sub(/[ \t]+$/, "", $1) }
       $1 == header { found = 1 } END { exit !found }' "$recipes"; then
    echo "$committed: no recipe line in $recipes" >&2
    exit 1
  fi
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$root/scripts/deploy_selectors.sh" "$recipes" "$out" "$ktune" "$regex"
count=0
for header in "$out"/*.hpp; do
  [[ -e $header ]] || break
  diff -u "$(dirname "$recipes")/selectors/$(basename "$header")" "$header"
  count=$((count + 1))
done
if [[ $count == 0 ]]; then
  echo "no recipe of $recipes matches '$regex'" >&2
  exit 1
fi
echo "$count headers regenerate byte for byte"
