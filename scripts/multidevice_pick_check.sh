#!/usr/bin/env bash
# Whether a multi-device selector header (ktune deploy with several devices' data) serves, for the
# device at DEVICE_INDEX of its kDevices, exactly the config that device's single-device header
# picks, on every problem of a dataset (GEMM keys). The device choice is pinned (a stub of the
# runtime's ktune_tuned_pick_device answers DEVICE_INDEX): what is checked is the dispatch after
# it, the multi header's own select(); identifying the device is the TunedDevice tests' job.
# No GPU: both headers are plain C++ (compiled here with c++).
#   scripts/multidevice_pick_check.sh MULTI.hpp DEVICE_INDEX SINGLE.hpp DATA.csv[.gz]
# Prints "<slug>: N problems, D differ" (and the differing ones); exits 1 when any differs.
set -euo pipefail
multi=${1:?usage: multidevice_pick_check.sh MULTI.hpp DEVICE_INDEX SINGLE.hpp DATA}
index=${2:?device index}
single=${3:?single-device header}
data=${4:?dataset}
for f in "$multi" "$single" "$data"; do [ -f "$f" ] || { echo "multidevice_pick_check: no file $f" >&2; exit 2; }; done
multi=$(realpath "$multi") single=$(realpath "$single")
[[ $index =~ ^[0-9]+$ ]] || { echo "multidevice_pick_check: device index '$index' is not a number" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The single header's namespace is renamed, so both headers live in one program.
cat > "$tmp/single.cpp" <<CPP
#include "$single"
const char* single_pick(long long ta, long long tb, long long m, long long n, long long k, long long b) {
  return ktune_selector::kConfigs[ktune_selector::select(ta, tb, m, n, k, b)];
}
CPP
cat > "$tmp/multi.cpp" <<CPP
#include <cstdio>
#include <cstring>
#include "$multi"
const char* single_pick(long long, long long, long long, long long, long long, long long);
extern "C" int ktune_tuned_pick_device(const char*, const char*, const char* const*, int,
                                       const char*, const double*) { return $index; }
int main() {
  if ($index >= ktune_selector::kNumDevices) {
    std::fprintf(stderr, "multidevice_pick_check: the header has %d devices\n", ktune_selector::kNumDevices);
    return 2;
  }
  long long ta, tb, m, n, k, b;
  int problems = 0, differ = 0;
  while (std::scanf("%lld %lld %lld %lld %lld %lld", &ta, &tb, &m, &n, &k, &b) == 6) {
    ++problems;
    const char* mine = ktune_selector::kConfigs[ktune_selector::select(ta, tb, m, n, k, b)];
    const char* theirs = single_pick(ta, tb, m, n, k, b);
    if (std::strcmp(mine, theirs) != 0 && ++differ)
      std::printf("differs: transa=%lld;transb=%lld;m=%lld;n=%lld;k=%lld;batch=%lld multi %s single %s\n",
                  ta, tb, m, n, k, b, mine, theirs);
  }
  std::printf("%s: %d problems, %d differ\n", ktune_selector::device_name(), problems, differ);
  return problems > 0 && differ == 0 ? 0 : 1;
}
CPP
c++ -std=c++17 -O1 -Dktune_selector=ktune_single_selector -c "$tmp/single.cpp" -o "$tmp/single.o"
c++ -std=c++17 -O1 "$tmp/multi.cpp" "$tmp/single.o" -o "$tmp/check"
{ case $data in *.gz) zcat "$data" ;; *) cat "$data" ;; esac; } |
  awk -F, 'NR > 1 && !seen[$3]++ { gsub(/"|[a-z]+=/, "", $3); gsub(/;/, " ", $3); print $3 }' |
  "$tmp/check"
