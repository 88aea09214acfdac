"""Measure how LinkedIn's setters draw their organic Queens levels and write the shapes the setter places.

    python bench/fit_setter.py            measure, print, write starbattle_core/generator/setter.json
    python bench/fit_setter.py --check    measure and print only

The levels are LinkedIn's (../shared/data/queens/linkedin.jsonl) that `designs.design_of` names organic. Of each,
every region but its largest (the background, which the setter leaves to what is left over) gives a shape
(`designs.shape_key`: turned and mirrored alike, counted once a region; kept when drawn on SHAPE_LEAST_LEVELS levels
or more) and the level's region sizes, smallest first, give one size profile of its board size. setter.py places
those shapes, a profile a board.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from starbattle_core.formats import read_jsonl  # noqa: E402
from starbattle_core.generator.designs import design_of, shape_key, shape_text  # noqa: E402
from starbattle_core.generator.setter import SETTER_FILE  # noqa: E402
from starbattle_core.puzzle import Puzzle  # noqa: E402

LINKEDIN = ROOT.parent / "shared" / "data" / "queens" / "linkedin.jsonl"


def organic_levels() -> list[Puzzle]:
    return [level for level in read_jsonl(str(LINKEDIN)) if design_of(level)[0] == "organic"]


# A shape drawn on fewer levels than this is left out: one setter's odd idea, and the ragged one-offs (two thirds of
# the shapes, a fifth of the regions) are what readers pick out.
SHAPE_LEAST_LEVELS = 2


def fit(levels: list[Puzzle]) -> dict[str, object]:
    shapes: Counter[tuple[tuple[int, int], ...]] = Counter()
    levels_with: Counter[tuple[tuple[int, int], ...]] = Counter()
    profiles: dict[int, list[list[int]]] = defaultdict(list)
    for level in levels:
        masks = sorted(level.region_masks, key=int.bit_count)
        keys = [shape_key(mask, level.size) for mask in masks[:-1]]
        shapes.update(keys)
        levels_with.update(set(keys))
        profiles[level.size].append([mask.bit_count() for mask in masks[:-1]])
    kept = [key for key in shapes if levels_with[key] >= SHAPE_LEAST_LEVELS]
    ordered = sorted(kept, key=lambda key: (-shapes[key], key))
    return {
        "fitted_by": "bench/fit_setter.py",
        "levels": len(levels),
        "shapes": {shape_text(key): shapes[key] for key in ordered},
        "profiles": {str(size): sorted(profiles[size]) for size in sorted(profiles)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="print only; do not write the setter file")
    args = parser.parse_args()
    fitted = fit(organic_levels())
    profiles = fitted["profiles"]
    assert isinstance(profiles, dict)
    print(f"{fitted['levels']} organic LinkedIn levels, {len(fitted['shapes'])} shapes")  # type: ignore[arg-type]
    print("  profiles by size: " + ", ".join(f"{size}x{size} {len(rows)}" for size, rows in profiles.items()))
    if not args.check:
        SETTER_FILE.write_text(json.dumps(fitted, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {SETTER_FILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
