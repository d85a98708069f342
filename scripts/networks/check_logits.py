#!/usr/bin/env python3
"""Compares ktune's logits per backend with PyTorch's (standard library only).

Reference: a file of torch_run.py logits (tensors `fp32`: PyTorch FP32 with cuDNN, TF32 off;
`fp64`: the same model in float64). Candidates: BACKEND=FILE, a safetensors file (tensor
`logits`, or its only tensor) or raw little-endian float32 [batch][classes].

Per candidate and image: relative error = max |candidate − ref| / max |ref| over the logits,
against float64 and against PyTorch FP32; top-1 and top-5 agreement with float64. A candidate
passes when both relative errors are ≤ --tolerance (default 1e-3: FP32 through 16 or 50
layers, summation orders and algorithms (Winograd, FFT) differing) and its top-5 set equals
float64's, a difference allowed only among logits within the tolerance of the 5th largest
(a near-tie). PyTorch FP32 itself is checked the same way (row `pytorch`). Rows are appended
to --csv; the exit status is 1 when a candidate fails.

--precision tf32 / bf16 compares with PyTorch in that precision instead (the reference file's
`tf32` / `bf16` tensor; the row `pytorch-<precision>` checks PyTorch itself); the last column
names the PyTorch precision the rel_err_vs_pytorch_fp32 column then means. Whole-network
errors in tf32 / bf16 compound over the layers (no derived bound): pass a --tolerance that
PyTorch's own row meets.

  check_logits.py --network vgg16 --input 1 --reference ref/vgg16-input-1.safetensors \
      --candidate cudnn=out/vgg16-cudnn-1.safetensors --csv agreement.csv
"""
import argparse
import array
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_io  # noqa: E402

HEADER = ("network,input,image,backend,rel_err_vs_fp64,rel_err_vs_pytorch_fp32,top1_agrees,"
          "top5_common,top5_ok,pass,pytorch_precision")


def load_candidate(path, count):
    if path.endswith(".safetensors"):
        tensors, _ = safetensors_io.read(path)
        name = "logits" if "logits" in tensors else next(iter(tensors))
        values = tensors[name][1]
    else:
        values = array.array("f")
        with open(path, "rb") as f:
            values.frombytes(f.read())
        if sys.byteorder != "little":
            values.byteswap()
    if len(values) != count:
        raise SystemExit(f"{path}: {len(values)} logits, want {count}")
    return values


def top(row, k):
    return sorted(range(len(row)), key=lambda i: -row[i])[:k]


def compare(cand, ref64, ref32, tol):
    scale = max(abs(v) for v in ref64)
    err64 = max(abs(a - b) for a, b in zip(cand, ref64)) / scale
    err32 = max(abs(a - b) for a, b in zip(cand, ref32)) / scale
    t_ref, t_cand = top(ref64, 5), top(cand, 5)
    common = len(set(t_ref) & set(t_cand))
    # A swap at the boundary is a near-tie when the logits involved are within tol of the 5th.
    fifth = ref64[t_ref[4]]
    top5_ok = all(abs(ref64[i] - fifth) <= tol * scale
                  for i in set(t_ref) ^ set(t_cand))
    top1 = t_ref[0] == t_cand[0] or abs(ref64[t_ref[0]] - ref64[t_cand[0]]) <= tol * scale
    ok = err64 <= tol and err32 <= tol and top5_ok and top1
    return err64, err32, top1, common, top5_ok, ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--network", required=True)
    parser.add_argument("--input", required=True, help="input name (e.g. its seed)")
    parser.add_argument("--reference", required=True)
    parser.add_argument("--candidate", action="append", default=[], metavar="BACKEND=FILE")
    parser.add_argument("--tolerance", type=float, default=1e-3)
    parser.add_argument("--precision", default="fp32", choices=["fp32", "tf32", "bf16"])
    parser.add_argument("--csv", required=True)
    args = parser.parse_args()
    tensors, _ = safetensors_io.read(args.reference)
    shape, ref64 = tensors["fp64"]
    if args.precision not in tensors:
        sys.exit(f"{args.reference}: no '{args.precision}' logits (torch_run.py logits --precision)")
    ref32 = tensors[args.precision][1]
    batch, classes = shape
    candidates = [("pytorch" + ("" if args.precision == "fp32" else "-" + args.precision), ref32)]
    for spec in args.candidate:
        backend, sep, path = spec.partition("=")
        if not sep:
            parser.error(f"--candidate {spec}: want BACKEND=FILE")
        candidates.append((backend, load_candidate(path, batch * classes)))
    new = not os.path.exists(args.csv)
    failed = 0
    with open(args.csv, "a") as out:
        if new:
            out.write(HEADER + "\n")
        for backend, values in candidates:
            for b in range(batch):
                row = slice(b * classes, (b + 1) * classes)
                err64, err32, top1, common, top5_ok, ok = compare(
                    values[row], ref64[row], ref32[row], args.tolerance)
                failed += not ok
                out.write(f"{args.network},{args.input},{b},{backend},{err64:.3e},{err32:.3e},"
                          f"{int(top1)},{common},{int(top5_ok)},{int(ok)},{args.precision}\n")
                print(f"{args.network} input {args.input} image {b} {backend}: rel err "
                      f"{err64:.2e} (fp64) {err32:.2e} (PyTorch {args.precision}), top-5 {common}/5 "
                      f"{'pass' if ok else 'FAIL'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
