"""SimSIMD kernels against NumPy on the 1M sidecar, same run: what each coarse scan costs.

  ref numpy f32 proj   today's pre-scan: private float32 1M x 96 @ query (the reference)
  hamming bits         SimSIMD Hamming over the 48-byte sign codes (mapped file)
  int8 proj            SimSIMD int8 dot over a 1M x 96 int8 projection
  int8 full            SimSIMD int8 cosine over the 1M x 384 int8 section (mapped file: 384 MB)
  f32 proj             SimSIMD float32 dot over the same projection as the reference
  f16 5000 rows        gather 5,000 float16 rows of the mapped file + SimSIMD cosine
  argpartition         best 5,000 of 1M Hamming distances
  counting cut         the same by a histogram of the integer distances

    python simd_kernels.py /tmp/vec0-research/meta-1000000.db
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import simsimd

from accel import Sidecar
from common import summary, timed, write_result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    side = Sidecar(Path(args.db + ".side"))
    n = side.count
    rng = np.random.default_rng(0)
    q = side.half[123].astype(np.float32)
    qb = np.packbits(q > side.model["mean"])
    qp = q @ side.model["basis"]
    qpi = np.clip(np.rint(qp / (np.abs(qp).max() / 127)), -127, 127).astype(np.int8)
    qi = np.clip(np.rint(q / side.model["scale"]), -127, 127).astype(np.int8)
    bits8 = side.bits.view(np.uint8).reshape(n, 48)
    proj_i8 = (side.proj.astype(np.int16) - 128).astype(np.int8)
    proj32 = side.half.astype(np.float32) @ side.model["basis"]
    rows = np.sort(rng.choice(n, 5000, replace=False))
    dist = np.asarray(simsimd.cdist(qb, bits8, metric="hamming", dtype="bin8")).ravel()

    def cut(d: np.ndarray, r: int) -> np.ndarray:
        c = np.bincount(d.astype(np.int64), minlength=385).cumsum()
        return np.flatnonzero(d <= int(np.searchsorted(c, r)))

    cases = {
        "ref numpy f32 proj 1M x 96": lambda: proj32 @ qp,
        "hamming bits 1M x 48 B": lambda: simsimd.cdist(qb, bits8, metric="hamming", dtype="bin8"),
        "int8 proj 1M x 96": lambda: simsimd.cdist(qpi, proj_i8, metric="dot", dtype="int8"),
        "int8 full 1M x 384 (mapped)": lambda: simsimd.cdist(qi, side.full, metric="cosine", dtype="int8"),
        "f32 proj 1M x 96": lambda: simsimd.cdist(qp.astype(np.float32), proj32, metric="dot"),
        "f16 5000 rows gather + cosine": lambda: simsimd.cdist(q.astype(np.float16), side.half[rows],
                                                               metric="cosine", dtype="float16"),
        "argpartition 1M -> 5000": lambda: np.argpartition(dist, 4999)[:5000],
        "counting cut 1M -> ~5000": lambda: cut(dist, 5000),
    }
    times = {k: [] for k in cases}
    for _ in range(args.repeat):  # interleaved: every case sees the same load
        for name, fn in cases.items():
            times[name].append(timed(fn)[0])
    ref = summary(times["ref numpy f32 proj 1M x 96"])["p50"]
    out = {}
    for name, ms in times.items():
        out[name] = {**summary(ms), "vs_ref": round(summary(ms)["p50"] / ref, 2)}
        print(f"{name:32} p50 {out[name]['p50']:8.2f} ms  x{out[name]['vs_ref']:.2f}")
    print(write_result("simd_kernels", {"rows": n, "simsimd": simsimd.__version__,
                                        "capabilities": [k for k, v in simsimd.get_capabilities().items() if v],
                                        "cases": out}))


if __name__ == "__main__":
    main()
