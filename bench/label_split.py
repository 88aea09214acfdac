"""Why labelled boards split across our bands: their solve paths, read statistic by statistic, per label.

For the 10x10 2-star boards of one labelled source (the site's medium/hard in archive.jsonl, or the app's
normal/hard in labelled.jsonl), every `--every`-th board is graded and its path summed up: difficulty, its plain
(non-hypothetical) part, the dearest step, the number of steps, of non-trivial steps and of trial steps. Printed: for
each statistic, the AUC of the easier label against the harder one (no fitting: each statistic as it is), then per
label the quartiles of difficulty, how many boards fall in each band, how many need a trial step, and the techniques
that are the hardest step most often. It answers whether the boards of the harder label that grade like the easier
one differ from it in anything the path shows.

    python bench/label_split.py --source site --every 5
    python bench/label_split.py --source app
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from starbattle_core.formats import puzzle_from_json  # noqa: E402
from starbattle_core.grader import STARBATTLE_TECHNIQUES, GradingConfig, grade  # noqa: E402

SHARED = REPO.parent / "shared" / "data" / "starbattle"
SOURCES = {"site": ("archive.jsonl", "medium", "hard"), "app": ("labelled.jsonl", "normal", "hard")}
TRIAL = {t.code for t in STARBATTLE_TECHNIQUES if t.family == "hypothetical"}
# The techniques that only tidy up after a star or a full unit (what every path is mostly made of).
TIDYING = {"SN", "LC", "UC", "UF", "TL"}


@dataclass(frozen=True)
class Summary:
    """One board's solve path, summed up."""

    label: str
    difficulty: int
    band: str
    trial: int  # the cost of its hypothetical steps
    dearest: int  # the cost of its dearest step
    steps: int
    reasoning: int  # steps that are not tidying
    hardest: str


STATISTICS: dict[str, Callable[[Summary], float]] = {
    "difficulty": lambda p: p.difficulty,
    "plain part": lambda p: p.difficulty - p.trial,
    "dearest step": lambda p: p.dearest,
    "steps": lambda p: p.steps,
    "non-tidying steps": lambda p: p.reasoning,
    "trial cost": lambda p: p.trial,
}


def auc(easier: list[float], harder: list[float]) -> float:
    """The chance that a board of the harder label scores above one of the easier (ties count half)."""
    wins = sum((a < b) + 0.5 * (a == b) for a in easier for b in harder)
    return wins / (len(easier) * len(harder))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", choices=SOURCES, default="site")
    parser.add_argument("--every", type=int, default=1, help="grade every N-th 10x10 board of the source")
    args = parser.parse_args()
    name, easier, harder = SOURCES[args.source]
    config = GradingConfig()
    paths: list[Summary] = []
    seen = 0
    with open(SHARED / name, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if record["size"] != 10 or record.get("label") not in (easier, harder):
                continue
            seen += 1
            if (seen - 1) % args.every:
                continue
            graded = grade(puzzle_from_json(record, where=name), config, chains=False)
            paths.append(
                Summary(
                    record["label"],
                    graded.difficulty,
                    graded.band,
                    sum(s.cost for s in graded.steps if s.code in TRIAL),
                    max(s.cost for s in graded.steps),
                    len(graded.steps),
                    sum(s.code not in TIDYING for s in graded.steps),
                    graded.hardest.code if graded.hardest else "-",
                )
            )
    print(
        f"{name}: {len(paths)} 10x10 boards ({easier} / {harder}), every {args.every}; cutoffs "
        f"{config.easy_below}/{config.medium_below}/{config.hard_below}"
    )
    for statistic, read in STATISTICS.items():
        low = [read(p) for p in paths if p.label == easier]
        high = [read(p) for p in paths if p.label == harder]
        print(f"  AUC {easier} < {harder} by {statistic:18} {auc(low, high):.3f}")
    easier_dearest = statistics.median(p.dearest for p in paths if p.label == easier)
    for label in (easier, harder):
        group = [p for p in paths if p.label == label]
        quartiles = statistics.quantiles([p.difficulty for p in group], n=4)
        bands = Counter(p.band for p in group)
        hardest = Counter(p.hardest for p in group).most_common(4)
        print(
            f"  {label:7} n {len(group):3}  difficulty q1/med/q3 {'/'.join(f'{q:.0f}' for q in quartiles)}  bands "
            f"{dict(bands)}  trial steps on {sum(p.trial > 0 for p in group)}  hardest {hardest}"
        )
    # The boards of the harder label that grade below it, against the easier label's boards.
    under = [p for p in paths if p.label == harder and p.band in ("easy", "medium")]
    if under:
        print(
            f"  {harder} graded easy or medium: {len(under)}, trial steps on {sum(p.trial > 0 for p in under)}, "
            f"dearest step median {statistics.median(p.dearest for p in under):.0f} (the {easier} boards: "
            f"{easier_dearest:.0f}), hardest {Counter(p.hardest for p in under).most_common(4)}"
        )


if __name__ == "__main__":
    main()
