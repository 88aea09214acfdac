"""A board's grade is a property of the board: difficulty, band, fun and the multiset of techniques are exactly the
same under every relabelling of its regions and every one of the 8 rotations and reflections, Star Battle and
Queens; and the steps, read back onto the turned board, solve it."""

from __future__ import annotations

import random
import re
from collections import Counter

from conftest import shared_file
from hypothesis import given, settings
from hypothesis import strategies as st
from test_grader import random_regions

from starbattle_core.formats import read_jsonl
from starbattle_core.grader import Grade, grade, walkthrough_text
from starbattle_core.grader.canonical import canonical_form, move_cells, symmetry_maps
from starbattle_core.puzzle import Puzzle, is_solution, region_name
from starbattle_core.region_map import puzzle_from_symbols


def turned(puzzle: Puzzle, symmetry: int, letters: list[int]) -> tuple[Puzzle, tuple[int, ...]]:
    """The puzzle under one of the 8 symmetries with region i renamed letters[i] (given marks carried along),
    and the cell map used."""
    n = puzzle.size
    moved = symmetry_maps(n)[symmetry]
    regions = [0] * (n * n)
    for cell, region in enumerate(puzzle.regions):
        regions[moved[cell]] = letters[region]
    grid = [[region_name(regions[r * n + c]) for c in range(n)] for r in range(n)]
    other = puzzle_from_symbols(
        grid,
        puzzle.stars,
        puzzle.game,
        given_stars=move_cells(puzzle.given_stars, moved),
        given_empty=move_cells(puzzle.given_empty, moved),
        solution=None if puzzle.solution is None else move_cells(puzzle.solution, moved),
    )
    return other, moved


def measure(result: Grade) -> tuple[object, ...]:
    return (
        result.solved,
        result.difficulty,
        result.band,
        result.experience,
        Counter(step.code for step in result.steps),
        [step.cost for step in result.steps],
    )


def assert_same_grade(puzzle: Puzzle, symmetry: int, letters: list[int], result: Grade | None = None) -> None:
    result = result or grade(puzzle)
    other, moved = turned(puzzle, symmetry, letters)
    again = grade(other)
    assert measure(again) == measure(result), f"{puzzle.id}: symmetry {symmetry}, letters {letters}"
    # The steps are on the turned board: they end on its own solution, and the marks agree cell by cell.
    assert again.stars == move_cells(result.stars, moved) and again.empty == move_cells(result.empty, moved)
    stars = other.given_stars
    for step in again.steps:
        stars |= step.stars
    if again.solved:
        assert is_solution(other, stars)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    size=st.sampled_from([5, 6, 7]),
    symmetry=st.integers(0, 7),
    data=st.data(),
)
def test_star_battle_grade_ignores_symmetry_and_letters(seed: int, size: int, symmetry: int, data) -> None:
    puzzle = Puzzle.from_grid(random_regions(size, random.Random(seed)), 1)
    letters = data.draw(st.permutations(range(size)))
    assert_same_grade(puzzle, symmetry, list(letters))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), symmetry=st.integers(0, 7), data=st.data())
def test_queens_and_givens_grade_ignores_symmetry_and_letters(seed: int, symmetry: int, data) -> None:
    rng = random.Random(seed)
    size = rng.choice([6, 7, 8])
    puzzle = Puzzle.from_grid(random_regions(size, rng), 1, "queens", given_empty=rng.getrandbits(size * size) & 0x1111)
    letters = data.draw(st.permutations(range(size)))
    assert_same_grade(puzzle, symmetry, list(letters))


def test_every_archive_board_has_one_canonical_form() -> None:
    """The whole archive (1,020 boards): all 8 symmetries, each with a seeded relabelling, give the same
    canonical board; this is what makes the grade of every archive board invariant (it grades that board)."""
    rng = random.Random(10)
    puzzles = list(read_jsonl(str(shared_file("starbattle/archive.jsonl"))))
    assert len(puzzles) == 1020
    for puzzle in puzzles:
        canonical, _ = canonical_form(puzzle)
        for symmetry in range(8):
            letters = rng.sample(range(puzzle.size), puzzle.size)
            other, _ = turned(puzzle, symmetry, letters)
            assert canonical_form(other)[0] == canonical, f"{puzzle.id}: symmetry {symmetry}"


def test_archive_boards_grade_the_same_turned_and_relettered() -> None:
    """Grades compared in full on a sample of the archive cheap enough for CI: every 20th board up to 10x10 and
    two quick 14x14 ones, each under a seeded symmetry and relabelling (bench/bench_invariance.py does all)."""
    rng = random.Random(11)
    puzzles = list(read_jsonl(str(shared_file("starbattle/archive.jsonl"))))
    sample = [p for i, p in enumerate(puzzles) if (p.size <= 10 and i % 20 == 0) or p.id in {"8:8226", "8:6246"}]
    assert len(sample) >= 30
    for puzzle in sample:
        assert_same_grade(puzzle, rng.randrange(1, 8), rng.sample(range(puzzle.size), puzzle.size))


def test_walkthrough_speaks_the_players_letters() -> None:
    """A board written with its own letters is narrated with them (not re-lettered A, B, C in reading order)."""
    puzzle = next(read_jsonl(str(shared_file("starbattle/handmade.jsonl"))))
    n = puzzle.size
    names = "ZYXWVUTSRQPONMLK"[:n]
    grid = [[names[puzzle.regions[r * n + c]] for c in range(n)] for r in range(n)]
    lettered = puzzle_from_symbols(grid, puzzle.stars)
    text = walkthrough_text(lettered, grade(lettered))
    regions = set(re.findall(r"\bregion ([A-Z])\b", text))
    assert regions and regions <= set(names), regions
