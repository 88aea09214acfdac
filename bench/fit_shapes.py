"""Fit the shape targets growth steers each board towards (generator/shaping.py) and write shapes.json.

    python bench/fit_shapes.py            fit, print, write starbattle_core/generator/shapes.json
    python bench/fit_shapes.py --check    fit and print only

For every size and stars with at least 50 real Star Battle boards in ../shared/data (the archive and the hand-made
boards: the labelled file's KrazyDad-generated boards are not a setter's), the mean of shaping.SHAPE_STATS, their
spread and the Cholesky factor of their covariance. A board of a size not fitted uses the nearest fitted size
with the same stars.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from starbattle_core.formats import read_jsonl  # noqa: E402
from starbattle_core.generator.shaping import SHAPE_STATS, SHAPES_FILE, kind_key, shape_stats  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
REAL_FILES = (
    "starbattle/archive.jsonl",
    "starbattle/handmade.jsonl",
)
LEAST = 50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="print only; do not write the shapes file")
    args = parser.parse_args()
    stats: dict[str, list[np.ndarray]] = defaultdict(list)
    for name in REAL_FILES:
        for p in read_jsonl(str(SHARED / name)):
            board = np.array(p.regions).reshape(p.size, p.size)
            stats[kind_key(p.size, p.stars)].append(shape_stats(board))
    kinds = {}
    for key in sorted(stats):
        rows = np.array(stats[key])
        if len(rows) < LEAST:
            continue
        mean, scale = rows.mean(axis=0), rows.std(axis=0)
        covariance = np.cov(rows.T) + 1e-9 * np.eye(len(SHAPE_STATS))
        factor = np.linalg.cholesky(covariance)
        kinds[key] = {
            "boards": len(rows),
            "mean": [round(float(v), 6) for v in mean],
            "scale": [round(float(v), 6) for v in scale],
            "factor": [[round(float(v), 6) for v in row] for row in factor],
        }
        print(
            f"{key:22s} {len(rows):4d} boards; "
            + ", ".join(f"{name} {m:.3f}±{s:.3f}" for name, m, s in zip(SHAPE_STATS, mean, scale, strict=True))
        )
    if not args.check:
        fitted = {"fitted_by": "bench/fit_shapes.py", "stats": list(SHAPE_STATS), "kinds": kinds}
        SHAPES_FILE.write_text(json.dumps(fitted, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {SHAPES_FILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
