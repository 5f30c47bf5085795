"""Each stage of a sidecar search at 1M, interleaved query by query so all share the machine's load.

Same run, same queries (the 22 scale questions), on the sidecar accel.py built beside the store:
  ref_f32_proj   today's pre-scan: a private float32 1M x 96 projection @ query (NumPy BLAS): the
                 reference, whose quiet-machine time is in the README (16-28 ms at 1M)
  ref_f32_full   today's exact scan: a private float32 1M x 384 matrix @ query (README: 107 ms at 1M)
  proj_ort       the sidecar's uint8 projection scanned by ONNX Runtime MatMulInteger (1 thread)
  bits_numpy     the sidecar's 48-byte sign codes: XOR + popcount, six columns
  bits_simd      the same codes through SimSIMD's Hamming kernel + a counting selection of the best R
  recommended_total  the recommended all-threads search end to end (bits_simd, R = --r's first value,
                 float16 cosines by SimSIMD of those R rows, top 50)
  top_r          argpartition of 1M scores to the best R
  refine_*       R rows of float16 from the mapped file: plain gather (pages stay mapped: RSS grows),
                 gather + MADV_DONTNEED over the section (RSS stays flat), one pread per row, or
                 SimSIMD's float16 cosine on the gathered rows + MADV_DONTNEED
The default set (v2) times the recommended search instead (accel.recommended), step by step:
  bits_simd_select_2%, asymmetric_2%_to_0.2%, pread_f16_cosine_0.2%, recommended_total, beside the
  two references, SimSIMD's int8 dot over the 96-d projection (+ argpartition) and argpartition alone.
Prints p50/p95 of each and the ratio of each to the reference in the same run.

    python stages.py /tmp/vec0-research/meta-1000000.db --set v1 --r 5000,10000   # stages-<db>.json
    python stages.py /tmp/vec0-research/meta-1000000.db --set v2 --rounds 2      # stages2-<db>.json
"""

from __future__ import annotations

import argparse
import mmap
import os
from pathlib import Path

import numpy as np

from accel import Sidecar, asymmetric, layout, recommended
from accel import refine_pread as pread_cosine
from common import DIMS, scale_queries, summary, timed, write_result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--r", default="5000,10000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--set", choices=("v1", "v2"), default="v2",
                    help="v1: the first run's stages (stages-<db>.json); v2: the recommended pipeline's")
    args = ap.parse_args()
    side = Sidecar(Path(args.db + ".side"))
    n = side.count
    queries = [q.astype(np.float32) / np.linalg.norm(q) for q in scale_queries()]
    # The references: private float32 copies, as today's VectorIndex holds them.
    full32 = side.half.astype(np.float32)
    proj32 = np.ascontiguousarray(full32 @ side.model["basis"])
    off = layout(n)
    fd = os.open(args.db + ".side", os.O_RDONLY)
    start = off["half"] - off["half"] % mmap.PAGESIZE

    def refine_gather(q, rows):
        return side.half[np.sort(rows)].astype(np.float32) @ q

    def refine_dontneed(q, rows):
        s = side.half[np.sort(rows)].astype(np.float32) @ q
        side.map.madvise(mmap.MADV_DONTNEED, start, off["end"] - start)
        return s

    def refine_pread(q, rows):
        row = 2 * DIMS
        blob = b"".join(os.pread(fd, row, off["half"] + int(i) * row) for i in np.sort(rows))
        return np.frombuffer(blob, dtype="<f2").reshape(len(rows), DIMS).astype(np.float32) @ q

    stages = {"ref_f32_proj": lambda q, r: proj32 @ (q @ side.model["basis"]),
              "ref_f32_full": lambda q, r: full32 @ q,
              "proj_ort": lambda q, r: side.coarse(q, r, "proj"),
              "bits_numpy": lambda q, r: side.coarse(q, r, "bits"),
              "bits_simd": lambda q, r: side.coarse(q, r, "bits_simd"),
              "recommended_total": lambda q, r: recommended(side, q, 50, share=r / n),
              "top_r": lambda q, r: np.argpartition(-scores, r - 1)[:r]}
    rs = [int(x) for x in args.r.split(",")]
    if args.set == "v2":
        wide, narrow = int(0.02 * n), int(0.002 * n)
        stages = {"ref_f32_proj": stages["ref_f32_proj"], "ref_f32_full": stages["ref_f32_full"],
                  "bits_simd_select_2%": lambda q, r: side.coarse(q, wide, "bits_simd"),
                  "proj_i8_simd_top_r": lambda q, r: side.coarse(q, narrow, "proj_simd"),
                  "argpartition_1M": stages["top_r"],
                  "asymmetric_2%_to_0.2%": lambda q, r: asymmetric(side, q, cand_wide, narrow),
                  "pread_f16_cosine_0.2%": lambda q, r: pread_cosine(side, fd, q, cand_narrow),
                  "recommended_total": lambda q, r: recommended(side, fd, q, 50)}
        rs = [narrow]
    for r in rs if args.set == "v1" else []:
        stages[f"refine_gather_{r}"] = lambda q, r_, r=r: refine_gather(q, cand[r])
        stages[f"refine_dontneed_{r}"] = lambda q, r_, r=r: refine_dontneed(q, cand[r])
        stages[f"refine_pread_{r}"] = lambda q, r_, r=r: refine_pread(q, cand[r])
        stages[f"refine_half_simd_dontneed_{r}"] = lambda q, r_, r=r: side.refine(q, cand[r], 50, "half_simd")
    times: dict[str, list[float]] = {k: [] for k in stages}
    for _ in range(args.rounds):
        for q in queries:
            scores = proj32 @ (q @ side.model["basis"])
            cand = {r: np.argpartition(-scores, r - 1)[:r] for r in rs}
            if args.set == "v2":
                cand_wide = side.coarse(q, wide, "bits_simd")
                cand_narrow = asymmetric(side, q, cand_wide, narrow)
            for name, fn in stages.items():
                if "dontneed" in name or name == "recommended_total":  # start each from the unmapped state
                    side.map.madvise(mmap.MADV_DONTNEED, start, off["end"] - start)
                t, _ = timed(lambda: fn(q, rs[0]))
                times[name].append(t)
            side.map.madvise(mmap.MADV_DONTNEED, start, off["end"] - start)
    ref = summary(times["ref_f32_proj"])["p50"]
    result = {"rows": n, "r": rs, "stages": {}}
    for name, ms in times.items():
        row = summary(ms)
        row["vs_ref_f32_proj"] = round(row["p50"] / ref, 3)
        result["stages"][name] = row
        print(f"{name:24} p50 {row['p50']:8.2f}  p95 {row['p95']:8.2f}  x{row['vs_ref_f32_proj']:.2f} of ref", flush=True)
    print(write_result(f"stages{'2' if args.set == 'v2' else ''}-{Path(args.db).stem}", result))


if __name__ == "__main__":
    main()
