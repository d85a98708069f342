#!/usr/bin/env python3
"""What a generated conv2d selector header serves per problem, in the order a tuned library tries
configs: the pick, then the header's fallback order (kSafeOrder) for when the pick refuses the
problem. Compiles the header with the family's own feature function
(kernels/conv2d/conv2d_features.hpp, as the deployed libraries do) into a small driver.
  scripts/conv_precision/header_picks.py HEADER < problems   (one problem key a line)
prints "problem<TAB>config<TAB>config..." per line. As a module: header_picks(header, keys)."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FIELDS = ("n", "h", "w", "c", "k", "r", "s", "stride", "pad")
DRIVER = r"""
#include <cstdio>
#include "kernels/conv2d/conv2d_features.hpp"
#include HEADER
namespace sel = ktune_selector;
// The features by name: a header trained on 16-bit rows also has `precision`, after pad.
template <class F>
constexpr bool has_precision = requires(F f) { f.precision; };
static_assert(sizeof(sel::Features) == sizeof(double) * (23 + has_precision<sel::Features>),
              "the header's features are not the conv2d family's");
template <class F>
void set_precision(F& f, double precision) {
  if constexpr (has_precision<F>) f.precision = precision;
}
int main() {
  long long a[10];
  while (std::scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", a, a + 1, a + 2, a + 3,
                    a + 4, a + 5, a + 6, a + 7, a + 8, a + 9) == 10) {
    const auto v = ktune::kernels::conv2d::feature_values(a[0], a[1], a[2], a[3], a[4], a[5], a[6],
                                                          a[7], a[8]);
    sel::Features f{};
    f.n = v[0], f.h = v[1], f.w = v[2], f.c = v[3], f.k = v[4], f.r = v[5], f.s = v[6];
    f.stride = v[7], f.pad = v[8], f.p = v[9], f.q = v[10], f.gemm_m = v[11], f.gemm_n = v[12];
    f.gemm_k = v[13], f.flops = v[14], f.bytes = v[15], f.intensity = v[16];
    f.log2_gemm_m = v[17], f.log2_gemm_n = v[18], f.log2_gemm_k = v[19], f.log2_flops = v[20];
    f.is_1x1 = v[21], f.winograd = v[22];
    set_precision(f, double(a[9]));
    const int pick = sel::select(f);
    std::printf("%s", sel::kConfigs[pick >= 0 && pick < sel::kNumConfigs ? pick : sel::kBaseline]);
    for (int i : sel::kSafeOrder) std::printf("\t%s", sel::kConfigs[i]);
    std::printf("\n");
  }
}
"""


def parse_key(key):
    """n=..;h=..;...;pad=..[;precision=..] -> the 10 integers (precision 0 when absent)."""
    values = dict(part.split("=") for part in key.split(";"))
    missing = [f for f in FIELDS if f not in values]
    if missing:
        raise ValueError(f"problem '{key}': no {', '.join(missing)}")
    return [int(values[f]) for f in FIELDS] + [int(values.get("precision", 0))]


def header_picks(header, keys):
    """{problem key: [config to try first, then the fallback order]} for the header."""
    keys = list(keys)
    with tempfile.TemporaryDirectory() as work:
        source, binary = os.path.join(work, "picks.cpp"), os.path.join(work, "picks")
        with open(source, "w") as f:
            f.write(DRIVER.replace("HEADER", '"' + os.path.abspath(header) + '"'))
        compiler = os.environ.get("CXX", "c++")
        subprocess.run([compiler, "-std=c++20", "-O1", "-I", os.path.abspath(ROOT), source, "-o",
                        binary], check=True)
        text = "".join(" ".join(map(str, parse_key(k))) + "\n" for k in keys)
        out = subprocess.run([binary], input=text, capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    if len(lines) != len(keys):
        raise RuntimeError(f"{header}: {len(lines)} picks for {len(keys)} problems")
    return {k: line.split("\t") for k, line in zip(keys, lines)}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    keys = [line.strip() for line in sys.stdin if line.strip()]
    for key, order in header_picks(sys.argv[1], keys).items():
        print(key + "\t" + "\t".join(order))


if __name__ == "__main__":
    main()
