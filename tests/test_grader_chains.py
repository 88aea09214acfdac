"""Trial steps a player can follow, and one grading entry point.

- Every hypothetical step carries its chain: the assumption (or each case of a unit), the forced links with the code
  of a technique cheaper than the step, and an ending; the marks of an assumption's chain really break a rule
  (checked here by an independent reading of the rules, not the grader's).
- `explain` narrates the chains; `explain --json` gives them as "chain": [{"code", "stars", "empties", "sentence"}].
- Published = recomputed: what `starbattle generate --json` prints is what `starbattle grade` says of that very
  output (difficulty, band, fun, solver version).
"""

from __future__ import annotations

import itertools
import json
from itertools import combinations

import pytest
from conftest import run_starbattle, shared_file

from starbattle_core.formats import read_jsonl
from starbattle_core.grader import STARBATTLE_TECHNIQUES, Grade, GradingConfig, grade
from starbattle_core.puzzle import REGION_SYMBOLS, Cells, Puzzle, coords_to_cells, iter_cells

COSTS = {t.code: t.cost for t in STARBATTLE_TECHNIQUES}
BOOKENDS = {"ASSUME", "CASE", "CONTRADICTION", "END"}


def fits(puzzle: Puzzle, cells: list[int], need: int) -> bool:
    """Whether `need` pairwise non-touching stars fit on `cells` (plain combinations: an independent check)."""
    return any(
        all(not puzzle.neighbours[a] & (1 << b) for a, b in combinations(choice, 2))
        for choice in combinations(cells, need)
    )


def breaks_a_rule(puzzle: Puzzle, stars: Cells, empty: Cells) -> bool:
    """Marks no solution can extend: a cell both ways, touching stars, a unit over its quota, or a unit (or a
    band of two rows or columns) whose open cells cannot hold the stars it lacks."""
    if stars & empty or any(puzzle.neighbours[c] & stars for c in iter_cells(stars)):
        return True
    n, k = puzzle.size, puzzle.stars
    open_cells = puzzle.all_cells & ~stars & ~empty
    rows, columns = puzzle.row_masks, puzzle.col_masks
    areas = [(mask, k) for _, _, mask in puzzle.units]
    areas += [(rows[i] | rows[i + 1], 2 * k) for i in range(n - 1)]
    areas += [(columns[i] | columns[i + 1], 2 * k) for i in range(n - 1)]
    for mask, quota in areas:
        need = quota - (mask & stars).bit_count()
        if need < 0 or not fits(puzzle, list(iter_cells(mask & open_cells)), need):
            return True
    return False


def check_chains(puzzle: Puzzle, result: Grade) -> int:
    stars_before = empty_before = 0
    checked = 0
    for step in result.steps:
        if step.code.startswith(("H", "F")):
            chain = step.chain
            assert chain, f"{puzzle.id}: {step.code} has no chain"
            starts = [i for i, link in enumerate(chain) if link.code in ("ASSUME", "CASE")]
            assert starts and starts[0] == 0
            for begin, end in itertools.pairwise([*starts, len(chain)]):
                piece = chain[begin:end]
                assert piece[-1].code in ("CONTRADICTION", "END"), f"{puzzle.id} {step.code}: {piece[-1]}"
                for link in piece[1:-1]:
                    assert link.code not in BOOKENDS and COSTS[link.code] < step.cost and link.sentence
                stars = stars_before | piece[0].stars
                empty = empty_before | piece[0].empties
                for link in piece[1:-1]:
                    stars |= link.stars
                    empty |= link.empties
                if piece[-1].code == "CONTRADICTION":
                    assert breaks_a_rule(puzzle, stars, empty), f"{puzzle.id} {step.code}: no rule broken"
                else:
                    assert not step.stars & ~stars and not step.empties & ~empty
                checked += 1
            if chain[0].code == "ASSUME":
                # The assumption is the opposite of what the step proves.
                assert chain[0].stars == step.empties and chain[0].empties == step.stars
        stars_before |= step.stars
        empty_before |= step.empties
    return checked


def test_every_hypothetical_step_of_archive_boards_has_a_chain_that_ends() -> None:
    puzzles = [p for p in read_jsonl(str(shared_file("starbattle/archive.jsonl"))) if p.size == 10][::25]
    checked = sum(check_chains(puzzle, grade(puzzle)) for puzzle in puzzles)
    assert checked >= 24  # measured: 28 assumptions and cases on these 12 boards (40 before pair cases)


def hard_board_line() -> str:
    with open(shared_file("starbattle/archive.jsonl"), encoding="utf-8") as handle:
        return next(line for line in handle if json.loads(line)["id"] == "6:10141")


def test_explain_narrates_chains_in_text_and_json(capsys, monkeypatch) -> None:
    status, out, _ = run_starbattle(capsys, "explain", "-", "--json", stdin=hard_board_line(), monkeypatch=monkeypatch)
    assert status == 0
    record = json.loads(out)
    chained = [step for step in record["steps"] if "chain" in step]
    assert chained and all(step["code"].startswith(("H", "F")) for step in chained)
    assert all("chain" in step for step in record["steps"] if step["code"].startswith(("H", "F")))
    for step in chained:
        for link in step["chain"]:
            assert list(link) == ["code", "stars", "empties", "sentence"]
            assert all(len(rc) == 2 for rc in link["stars"] + link["empties"])
    status, text, _ = run_starbattle(capsys, "explain", "-", stdin=hard_board_line(), monkeypatch=monkeypatch)
    first = chained[0]["chain"]
    assert first[0]["sentence"] in text and first[-1]["sentence"] in text
    # The pictures carry column numbers above and row numbers on the left.
    assert "  1   2   3   4   5   6   7   8   9   10" in text and "\n10 " in text


@pytest.mark.parametrize(
    "args",
    [
        ("--band", "easy", "--seed", "1"),
        ("--band", "medium", "--seed", "2"),
        ("--game", "queens", "--size", "8", "--band", "medium", "--seed", "3"),
        # 14x14 3-star, the shipped extra slot (its cheapest measured seed: 4 candidates): a medium board by the
        # 14x14 cutoffs whose difficulty the 10x10 cutoffs would call hard. Seed 0 since the shaped regions of
        # issue 28 (seed 1 now gives a board of 684, medium by both cutoffs; seed 0 gives 1,808).
        ("--slot", "starbattle-14-medium", "--seed", "0"),
    ],
)
def test_published_grade_is_the_recomputed_one(capsys, tmp_path, monkeypatch, args) -> None:
    monkeypatch.delenv("STARBATTLE_CONFIG", raising=False)
    status, out, _ = run_starbattle(capsys, "generate", "--json", *args)
    assert status == 0
    published = json.loads(out)
    if published["size"] == 14:
        grading = GradingConfig()
        assert published["band"] == grading.band(published["difficulty"], 14) == "medium"
        assert grading.band(published["difficulty"]) != "medium"
    # Lettered as every real board is: each region's letter first met in reading order, A, B, C, ...
    letters = "".join(published["regions"])
    assert "".join(dict.fromkeys(letters)) == REGION_SYMBOLS[: published["size"]]
    exported = tmp_path / "board.json"
    exported.write_text(out, encoding="utf-8")
    status, out, _ = run_starbattle(capsys, "grade", str(exported), "--json")
    assert status == 0
    regraded = json.loads(out)
    for field in ("difficulty", "band", "fun", "solver_version"):
        assert regraded[field] == published[field], field
    # The steps the pipeline stores are the ones `explain` narrates: same total, the player's letters.
    status, out, _ = run_starbattle(capsys, "explain", str(exported), "--json")
    steps = json.loads(out)["steps"]
    assert steps[-1]["total"] == published["difficulty"]
    solution = coords_to_cells(published["solution"], published["size"])
    assert sum(coords_to_cells(step["stars"], published["size"]) for step in steps) == solution
