#!/usr/bin/env python3
"""scripts/wgmma_big/kloop_count.py on hand-made SASS and PTX listings whose K loops are counted
by hand: the smallest backward-branch span holding an MMA (not an outer loop, not a wait's inner
retry loop outside it), per K tile by the waits in the span; one-line errors for a missing file
and a listing with no MMA loop.
  test_wgmma_kloop_count.py SCRIPT"""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "wgmma_big", "kloop_count.py")

NAME = "_Z16ktune_gemm_wgmmaILi256ELi128ELi4ELi1ELi2ELi0ELi0EEv11KtuneTmaMapS0_xxxxffPfxx"


def sass(lines):
    """cuobjdump -sass text: one instruction every 16 bytes, '.L_x_N:' labels on their own line."""
    out, addr = ["\tcode for sm_90a", "\t\tFunction : " + NAME], 0
    for line in lines:
        if line.endswith(":"):
            out.append(line)
        else:
            out.append("        /*%04x*/                   %s ;   /* 0x000000 */" % (addr, line))
            addr += 16
    return "\n".join(out) + "\n"


# An outer tile loop (.L_x_0) around a K loop (.L_x_1, unrolled twice: 2 barrier waits) whose
# waits retry out of line (.L_x_9 after EXIT). K loop: 13 instructions, 4 HGMMA, 2 K tiles, and a
# third WARPGROUP.DEPBAR (as a compiler that serializes the MMAs adds) that is not a K tile.
SASS_LINES = [
    "MOV R1, c[0x0][0x28]", ".L_x_0:", "IADD3 R2, R2, 0x1, RZ", ".L_x_1:",
    "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R3], R4", "@!P0 BRA `(.L_x_9)",
    "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], R24", "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR8], R24",
    "WARPGROUP.DEPBAR.LE gsb0, 0x1", "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R3], R4",
    "@!P0 BRA `(.L_x_9)", "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], R24",
    "WARPGROUP.DEPBAR.LE gsb0, 0x0", "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR8], R24",
    "WARPGROUP.DEPBAR.LE gsb0, 0x1", "ISETP.NE.AND P1, PT, R5, R6, PT", "@P1 BRA `(.L_x_1)",
    "@P2 BRA `(.L_x_0)", "EXIT", ".L_x_9:", "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R3], R4",
    "@!P0 BRA `(.L_x_9)", "BRA `(.L_x_1)",
]

PTX = """.version 8.8
.target sm_90a
.visible .entry %s(
)
{
\tmov.u32 \t%%r1, 0;
$L__BB0_1:
\t{
.reg .pred p;
W:
mbarrier.try_wait.parity.shared::cta.b64 p, [%%r2], %%r3, 10000000;
@!p bra W;
}
\twgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%%f1}, %%rd1, %%rd2, p, 1, 1, 1, 0;
\twgmma.commit_group.sync.aligned;
\twgmma.wait_group.sync.aligned 1;
\tadd.s32 \t%%r1, %%r1, 1;
\tsetp.ne.s32 \t%%p1, %%r1, %%r4;
\t@%%p1 bra \t$L__BB0_1;
\tret;
}
""" % NAME


class KLoopCount(unittest.TestCase):
    def run_script(self, text, *args):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "listing.txt")
            with open(path, "w") as f:
                f.write(text)
            return subprocess.run([sys.executable, SCRIPT, path, *args], capture_output=True, text=True)

    def test_sass_inner_k_loop_per_tile(self):
        out = self.run_script(sass(SASS_LINES), "--csv", "--label", "x")
        self.assertEqual(out.returncode, 0, out.stderr)
        row = out.stdout.splitlines()[1]
        # 13 instructions from .L_x_1 to its branch; 2 waits: 6.5 a tile, 4.5 besides the 4 HGMMA.
        self.assertTrue(row.startswith('x,"ktune_gemm_wgmma<256,128,4,1,2,0,0>",13,2,4,6.5,4.5,'), row)
        self.assertIn("HGMMA:4", row)

    def test_sass_with_addresses_as_targets(self):
        text = sass(SASS_LINES).replace("`(.L_x_1)", "0x20")  # .L_x_1 is the instruction at 0x20
        out = self.run_script(text, "--csv")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn(",13,2,4,6.5,4.5,", out.stdout)

    def test_ptx_loop_holds_the_scoped_wait(self):
        out = self.run_script(PTX, "--csv")
        self.assertEqual(out.returncode, 0, out.stderr)
        # try_wait, bra W (its own scoped label), mma, commit, wait, add, setp, bra: 8, one tile.
        self.assertIn('"ktune_gemm_wgmma<256,128,4,1,2,0,0>",8,1,1,8.0,7.0,', out.stdout)

    def test_errors_are_one_line(self):
        out = subprocess.run([sys.executable, SCRIPT, "/nonexistent/listing"], capture_output=True,
                             text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("/nonexistent/listing", out.stderr)
        self.assertEqual(out.stderr.strip().count("\n"), 0)
        no_mma = [line for line in SASS_LINES if not line.startswith("HGMMA")]
        out = self.run_script(sass(no_mma))
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("no K loop", out.stderr)
        self.assertEqual(out.stderr.strip().count("\n"), 0)


if __name__ == "__main__":
    unittest.main()
