#!/usr/bin/env python3
"""scripts/networks/networks_precision_md.py's wgmma section on a hand-made run whose figures are
worked out by hand: per network, batch and precision, the layers with a wgmma time in ktune-bf16's
or ktune-tf32's pick note (the fastest config kept), how many picked wgmma, geomean and time-weighted cuDNN / wgmma, the
worst layer first; a layer without a wgmma time (the stem) and other backends' rows left out; the
pick counts per precision and layer kind (fp32 convs and FC layers picked too, cuBLAS a candidate).
  test_networks_precision_md.py SCRIPT"""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "networks", "networks_precision_md.py")

NETWORKS = """network,batch,backend,device,median_ms
vgg16,1,ktune-bf16-graph,GPU X,0.5
vgg16,1,pytorch-bf16-channels-last-cudagraph,GPU X,1.0
"""


def note(pick, gemm_ex, cudnn, *wgmma):
    configs = "".join(f", wgmma c{i} {t} ms" for i, t in enumerate(wgmma))
    return (f'"pick={pick} (gemm_ex {gemm_ex} ms, cudnn {cudnn} ms{configs} at load: fastest of '
            f'12 interleaved rounds); rest"')


LAYERS = "network,batch,backend,layer,name,kind,median_ms,choice\n" + "".join([
    f"vgg16,1,ktune-bf16,0,stem,conv,0.1,{note('cudnn', 0.3, 0.1)}\n",
    f"vgg16,1,ktune-bf16,1,a,conv,0.1,{note('wgmma', 0.9, 0.2, 0.4, 0.1)}\n",  # 2.0
    f"vgg16,1,ktune-bf16,2,b,conv,0.1,{note('cudnn', 0.9, 0.1, 0.2)}\n",  # 0.5
    f"vgg16,1,cudnn-bf16,1,a,conv,0.1,{note('wgmma', 0.9, 0.5, 0.01)}\n",  # not ktune-bf16
    f"vgg16,1,ktune-tf32,1,a,conv,0.1,{note('wgmma', 0.9, 0.3, 0.2, 0.1)}\n",  # tf32: 3.0
    "vgg16,1,ktune-bf16,3,fc,fc,0.1,\n",
    'vgg16,1,ktune-bf16,5,fc2,fc,0.1,"pick=cublas (gemm_ex 0.1 ms, cublas 0.05 ms at load: '
    'fastest of 12 interleaved rounds); cuBLAS bf16"\n',
    'vgg16,1,ktune,4,c,conv,0.1,"pick=cublas (conv2d 0.05 ms, cublas 0.03 ms, cudnn 0.04 ms at '
    'load: fastest of 12 interleaved rounds); cuBLAS fp32"\n',
])


class WgmmaSection(unittest.TestCase):
    def test_figures(self):
        d = tempfile.mkdtemp()
        for name, text in (("networks.csv", NETWORKS), ("layers.csv", LAYERS)):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        out = subprocess.run([sys.executable, SCRIPT, d], capture_output=True, text=True,
                             check=True).stdout
        # 2 layers, 1 picked, geomean sqrt(2.0 · 0.5) = 1.000, time-weighted 0.3 / 0.3.
        self.assertIn(
            "| vgg16 | 1 | bf16 | 2 | 1 | 1.000 | 1.000 | 0.300 | 0.300 | b 0.50, a 2.00 |", out)
        # ktune-tf32's layer on its own row, before bf16's: 0.3 / 0.1.
        section = out.split("wgmma conv candidate against")[1]
        self.assertLess(section.index("| vgg16 | 1 | tf32 | 1 | 1 | 3.000 | 3.000 | 0.100 | "
                                      "0.300 | a 3.00 |"), section.index("| vgg16 | 1 | bf16 |"))
        # Columns conv2d, gemm_ex, gemm, cublas, cudnn, wgmma; fp32 first.
        picks = out.split("per-layer pick at load")[1]
        rows = [line for line in picks.splitlines() if line.startswith("| vgg16 |")][:4]
        self.assertEqual(rows, ["| vgg16 | 1 | fp32 | conv | 0 | 0 | 0 | 1 | 0 | 0 |",
                                "| vgg16 | 1 | tf32 | conv | 0 | 0 | 0 | 0 | 0 | 1 |",
                                "| vgg16 | 1 | bf16 | conv | 0 | 0 | 0 | 0 | 2 | 1 |",
                                "| vgg16 | 1 | bf16 | fc | 0 | 0 | 0 | 1 | 0 | 0 |"])


if __name__ == "__main__":
    unittest.main()
