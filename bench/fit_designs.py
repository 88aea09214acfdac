"""Measure how LinkedIn draws its Queens levels and write the design frequencies the generator draws with.

    python bench/fit_designs.py            measure, print, write starbattle_core/generator/designs.json
    python bench/fit_designs.py --check    measure and print only

Every LinkedIn level in ../shared/data/queens/linkedin.jsonl is named by `designs.design_of` (the first mode that
fits: mirror, rings, bars, frame, organic) with its parameter: which symmetry, how many ring arcs, how many bars
and along which lines, how many of a frame level's queens lie on the edge. The frequencies of the modes and of each
mode's parameters are written as they are measured; growth.py draws a board's mode and parameters with them. So are
the shapes the levels repeat (`repeated`: 4 cells or more, congruent turned or mirrored, on 3 levels or more,
weighted by their regions) and how many regions a level's most repeated shape has (`copies`), for
growth.place_repeats. Re-run when design_of or designs.shape_key changes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from starbattle_core.formats import read_jsonl  # noqa: E402
from starbattle_core.generator.designs import (  # noqa: E402
    DESIGNS_FILE,
    MODES,
    SYMMETRIES,
    design_of,
    edge_queens,
    shape_key,
    shape_text,
)
from starbattle_core.puzzle import Puzzle  # noqa: E402

LINKEDIN = ROOT.parent / "shared" / "data" / "queens" / "linkedin.jsonl"


def shares(counts: Counter[str] | Counter[int], keys: list[str] | list[int]) -> dict[str, float]:
    total = sum(counts.values()) or 1
    return {str(key): round(counts[key] / total, 4) for key in keys}  # type: ignore[index]


# A shape repeated on fewer levels than this is left out of the shapes growth repeats (one setter's odd idea).
REPEATED_LEAST_LEVELS = 3


def repeats(levels: list[Puzzle]) -> dict[str, dict[str, float]]:
    """The shapes LinkedIn's levels draw several times (designs.repeated_shapes: 4 cells or more, turned or mirrored
    alike), weighted by the regions they make, and the copies of a level's most repeated shape, over the levels that
    repeat one."""
    regions: Counter[tuple[tuple[int, int], ...]] = Counter()
    levels_with: Counter[tuple[tuple[int, int], ...]] = Counter()
    copies: Counter[int] = Counter()
    for level in levels:
        seen = Counter(shape_key(mask, level.size) for mask in level.region_masks if mask.bit_count() >= 4)
        groups = {key: times for key, times in seen.items() if times >= 2}
        for key, times in groups.items():
            regions[key] += times
            levels_with[key] += 1
        if groups:
            copies[max(groups.values())] += 1
    kept = {key: n for key, n in regions.items() if levels_with[key] >= REPEATED_LEAST_LEVELS}
    ordered = sorted(kept, key=lambda key: (-kept[key], key))
    return {
        "repeated": {shape_text(key): round(kept[key] / sum(kept.values()), 4) for key in ordered},
        "copies": shares(copies, sorted(copies)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="print only; do not write the designs file")
    args = parser.parse_args()
    levels = list(read_jsonl(str(LINKEDIN)))
    named = [design_of(level) for level in levels]
    modes = Counter(mode for mode, _ in named)
    symmetries = Counter(str(value) for mode, value in named if mode == "mirror")
    rings = Counter(int(value) for mode, value in named if mode == "rings")
    bars = Counter(abs(int(value)) for mode, value in named if mode == "bars")
    along_rows = sum(int(value) > 0 for mode, value in named if mode == "bars") / max(1, sum(bars.values()))
    # A frame level's queens on the edge, from its solution: LinkedIn frames few (a uniform 9x9 layout has 4 there
    # 63% of the time, its frame levels 6%), so frame boards draw their layouts with these counts.
    frames = [level for level, (mode, _) in zip(levels, named, strict=True) if mode == "frame"]
    framed = Counter(edge_queens(level.solution, level.size) for level in frames if level.solution is not None)
    fitted = {
        "fitted_by": "bench/fit_designs.py",
        "levels": len(levels),
        "modes": shares(modes, list(MODES)),
        "symmetries": shares(symmetries, list(SYMMETRIES)),
        "rings": shares(rings, sorted(rings)),
        "bars": shares(bars, sorted(bars)),
        "bars_along_rows": round(along_rows, 4),
        "frame_edge_queens": shares(framed, sorted(framed)),
    }
    repeated = repeats(levels)
    fitted.update(repeated)
    print(f"{len(levels)} LinkedIn levels")
    for key in ("modes", "symmetries", "rings", "bars", "bars_along_rows", "frame_edge_queens", "copies"):
        print(f"  {key}: {fitted[key]}")
    print(f"  repeated: {len(repeated['repeated'])} shapes, most: {list(repeated['repeated'].items())[:4]}")
    if not args.check:
        DESIGNS_FILE.write_text(json.dumps(fitted, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {DESIGNS_FILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
