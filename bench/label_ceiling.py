"""How much of the archive's difficulty labels can any measure here recover? Per size, the AUC (P(a board of the
harder label scores above one of the easier label), ties half) of:

- the grader's difficulty (the sum of step costs: what the pipeline publishes);
- the counter's search nodes, a measure that shares nothing with the technique table;
- the step costs refitted to the labels while keeping the technique order (so every solve path stays the same and
  difficulty stays a sum of costs), fitted on a random half and scored on the other half, six splits;
- free weights per technique (any cost table on these paths, order ignored), fitted and scored the same way: an
  upper bound for what re-costing the table could reach.

If the last column is far below the aim, no choice of costs reaches it: the labels carry less of what the solver
measures. The input is the per-board file of bench_grader.py (its --json output):

    python bench/bench_grader.py --files starbattle/archive.jsonl --workers 2 --json graded.jsonl
    python bench/label_ceiling.py graded.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from starbattle_core.counter import count_solutions  # noqa: E402
from starbattle_core.formats import puzzle_from_json  # noqa: E402
from starbattle_core.grader.table import STARBATTLE_TECHNIQUES  # noqa: E402

ARCHIVE = REPO.parent / "shared" / "data" / "starbattle" / "archive.jsonl"
LABEL_ORDER = {"easy": 0, "medium": 1, "hard": 2}


def auc(scores: np.ndarray, harder: np.ndarray) -> float:
    high, low = scores[harder], scores[~harder]
    return float((high[:, None] > low[None, :]).mean() + 0.5 * (high[:, None] == low[None, :]).mean())


def fit_pairwise(features: np.ndarray, harder: np.ndarray, train: np.ndarray, nonnegative: bool) -> np.ndarray:
    """Weights maximising a smooth AUC (logistic loss on every harder/easier pair of the training half), by
    gradient descent; `nonnegative` projects onto w >= 0 after each step."""
    scale = features[train].std(0) + 1e-9
    z = features / scale
    high, low = np.where(train & harder)[0], np.where(train & ~harder)[0]
    pairs = (z[high][:, None, :] - z[low][None, :, :]).reshape(-1, z.shape[1])
    w = np.full(z.shape[1], 0.01 if nonnegative else 0.0)
    for _ in range(800):
        gradient = -(pairs * (1 / (1 + np.exp(pairs @ w)))[:, None]).mean(0) + 1e-3 * w
        w -= 0.1 * gradient
        if nonnegative:
            w = np.maximum(w, 0)
    return w / scale


def held_out(features: np.ndarray, harder: np.ndarray, nonnegative: bool, splits: int = 6) -> float:
    rng = np.random.default_rng(0)
    scores = []
    for _ in range(splits):
        train = np.zeros(len(harder), bool)
        train[rng.permutation(len(harder))[: len(harder) // 2]] = True
        w = fit_pairwise(features, harder, train, nonnegative)
        scores.append(auc((features @ w)[~train], harder[~train]))
    return float(np.mean(scores))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graded", help="per-board JSON lines from bench_grader.py --json")
    args = parser.parse_args()
    codes = [t.code for t in STARBATTLE_TECHNIQUES]
    column = {code: i for i, code in enumerate(codes)}
    rows = {row["id"]: row for row in map(json.loads, ARCHIVE.read_text(encoding="utf-8").splitlines()) if row}
    records = [
        r
        for r in map(json.loads, Path(args.graded).read_text(encoding="utf-8").splitlines())
        if r["file"] == "starbattle/archive.jsonl" and r["solved"]
    ]
    print(
        f"{'size':>5} {'labels':>16} {'n':>4} {'difficulty':>10} {'nodes':>6} "
        f"{'refit, order kept':>18} {'free weights':>13}"
    )
    for size in sorted({r["size"] for r in records}):
        group = [r for r in records if r["size"] == size]
        easier, harder_label = sorted({r["label"] for r in group}, key=LABEL_ORDER.__getitem__)[-2:]
        group = [r for r in group if r["label"] in (easier, harder_label)]
        harder = np.array([r["label"] == harder_label for r in group])
        counts = np.zeros((len(group), len(codes)))
        for i, r in enumerate(group):
            for code in r["codes"]:
                counts[i, column[code]] += 1
        # Steps at or above each rank of the table: a non-negative weight per rank is a cost table in the same order.
        at_or_above = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]
        nodes = np.array(
            [count_solutions(puzzle_from_json(rows[r["id"]], where=r["id"]), 2, sat_after=None).nodes for r in group],
            float,
        )
        print(
            f"{size:>5} {easier + '<' + harder_label:>16} {len(group):>4} "
            f"{auc(np.array([r['difficulty'] for r in group], float), harder):>10.3f} {auc(nodes, harder):>6.3f} "
            f"{held_out(at_or_above, harder, True):>18.3f} {held_out(counts, harder, False):>13.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
