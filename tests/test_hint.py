"""`hint`: the next step from a player's marks, checked against brute force on small boards and followed to the end
on real ones; wrong marks and boards without a unique solution; the command's input, output and exit status."""

from __future__ import annotations

import json
import random

from brute_force import brute_force_solutions
from conftest import run_starbattle, shared_file
from hypothesis import given, settings
from hypothesis import strategies as st
from test_grader import random_regions

from starbattle_core.formats import puzzle_to_json, puzzle_to_puzzlink, puzzle_to_text, read_jsonl
from starbattle_core.grader import grade
from starbattle_core.grader.hint import hint
from starbattle_core.puzzle import Puzzle, cells_to_coords, iter_cells


def _subset(mask: int, rng: random.Random) -> int:
    return sum(1 << cell for cell in iter_cells(mask) if rng.random() < 0.5)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([5, 6, 7]))
def test_hint_against_brute_force(seed: int, size: int) -> None:
    """From any random subset of the right marks, a hint's step holds in the one solution and decides an open cell;
    any wrong mark is named exactly; several solutions or none are said so."""
    rng = random.Random(seed)
    puzzle = Puzzle.from_grid(random_regions(size, rng), 1)
    solutions = brute_force_solutions(puzzle)
    if len(solutions) != 1:
        assert hint(puzzle).status == ("no_solution" if not solutions else "not_unique")
        return
    solution = solutions[0]
    stars = _subset(solution, rng)
    empties = _subset(puzzle.all_cells & ~solution, rng)
    answer = hint(puzzle, stars, empties)
    if stars == solution:
        assert answer.status == "solved"
    else:
        assert answer.status == "step" and answer.step is not None
        step = answer.step
        assert step.stars & ~solution == 0 and step.empties & solution == 0
        assert (step.stars | step.empties) & ~(stars | empties)
    wrong_star = rng.choice(list(iter_cells(puzzle.all_cells & ~solution)))
    wrong = hint(puzzle, stars | 1 << wrong_star, empties & ~(1 << wrong_star))
    assert wrong.status == "wrong" and wrong.wrong_stars == 1 << wrong_star and wrong.wrong_empties == 0
    wrong_empty = rng.choice(list(iter_cells(solution)))
    wrong = hint(puzzle, stars & ~(1 << wrong_empty), empties | 1 << wrong_empty)
    assert wrong.status == "wrong" and wrong.wrong_empties == 1 << wrong_empty and wrong.wrong_stars == 0


def test_following_hints_solves_real_boards_like_the_grader() -> None:
    """Taking hint after hint from an empty board walks the grader's own solve path to the published solution."""
    boards = list(read_jsonl(str(shared_file("starbattle/handmade.jsonl"))))[:4]
    boards += list(read_jsonl(str(shared_file("queens/linkedin.jsonl"))))[:2]
    for puzzle in boards:
        path = grade(puzzle).steps
        stars = empties = 0
        for expected in path:
            answer = hint(puzzle, stars, empties)
            assert answer.status == "step" and answer.step == expected, puzzle.id
            stars |= expected.stars
            empties |= expected.empties
        assert stars == puzzle.solution
        assert hint(puzzle, stars, empties).status == "solved"


def _board_with_marks(puzzle: Puzzle, stars: list[list[int]], empties: list[list[int]]) -> str:
    return json.dumps({**puzzle_to_json(puzzle), "marks": {"stars": stars, "empties": empties}})


def test_hint_command(capsys, monkeypatch, tmp_path) -> None:
    puzzle = next(read_jsonl(str(shared_file("starbattle/handmade.jsonl"))))
    assert puzzle.solution is not None
    star = next(list(rc) for rc in cells_to_coords(puzzle.solution, puzzle.size))
    status, out, _ = run_starbattle(
        capsys, "hint", "-", "--json", stdin=_board_with_marks(puzzle, [star], []), monkeypatch=monkeypatch
    )
    record = json.loads(out)
    assert status == 0 and record["status"] == "step" and record["technique"] == "star neighbours"
    assert record["empties"] and all(max(abs(r - star[0]), abs(c - star[1])) == 1 for r, c in record["empties"])
    assert record["sentence"] in record["message"]

    # A star on a cell the solution leaves empty: named in one sentence, status 1.
    off = next(
        [r, c]
        for r in range(puzzle.size)
        for c in range(puzzle.size)
        if [r, c] not in puzzle_to_json(puzzle)["solution"]
    )
    path = tmp_path / "board.json"
    path.write_text(_board_with_marks(puzzle, [off], []))
    status, out, _ = run_starbattle(capsys, "hint", str(path))
    assert status == 1 and f"no star belongs on R{off[0] + 1}C{off[1] + 1}" in out

    # Two solutions: said so, status 1.
    two = json.dumps({"size": 4, "stars": 1, "regions": ["AABB", "AABB", "CCDD", "CCDD"]})
    status, out, _ = run_starbattle(capsys, "hint", "-", stdin=two, monkeypatch=monkeypatch)
    assert status == 1 and "more than one solution" in out

    # Bad marks: one line naming the problem, status 2.
    bad = json.dumps({**puzzle_to_json(puzzle), "marks": {"stars": [[0, 99]]}})
    status, out, err = run_starbattle(capsys, "hint", "-", stdin=bad, monkeypatch=monkeypatch)
    assert status == 2 and out == "" and "'marks.stars' cell [0, 99] is off the 10x10 board" in err
    assert len(err.strip().splitlines()) == 1


def test_hint_reads_every_format_the_other_commands_read(capsys, monkeypatch) -> None:
    """A text picture (its given stars are the player's marks), a puzz.link URL and the JSON form give the same hint
    for the same marks; a picture without its star count takes --stars."""
    puzzle = next(read_jsonl(str(shared_file("starbattle/handmade.jsonl"))))
    star = next(iter_cells(puzzle.solution))
    r, c = divmod(star, puzzle.size)
    picture = puzzle_to_text(puzzle).replace("stars:", f"given stars: R{r + 1}C{c + 1}\nstars:", 1)
    answers = []
    for text in (picture, _board_with_marks(puzzle, [[r, c]], [])):
        status, out, err = run_starbattle(capsys, "hint", "-", "--json", stdin=text, monkeypatch=monkeypatch)
        assert status == 0 and err == "", err
        answers.append({key: value for key, value in json.loads(out).items() if key != "id"})
    assert answers[0] == answers[1] and answers[0]["technique"] == "star neighbours"

    status, out, _ = run_starbattle(
        capsys, "hint", "-", "--json", stdin=puzzle_to_puzzlink(puzzle), monkeypatch=monkeypatch
    )
    assert status == 0 and json.loads(out)["status"] == "step"
    bare = "\n".join(puzzle.region_rows())
    status, _, err = run_starbattle(capsys, "hint", "-", stdin=bare, monkeypatch=monkeypatch)
    assert status == 2 and "stars" in err and len(err.strip().splitlines()) == 1
    status, out, _ = run_starbattle(
        capsys, "hint", "-", "--stars", str(puzzle.stars), stdin=bare, monkeypatch=monkeypatch
    )
    assert status == 0 and "R" in out
