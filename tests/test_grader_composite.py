"""Cases over two units at once (composite.py: two touching regions, a line and a region crossing it): sound on
random small boards against brute force, and doing real work on the archive's hard boards (they replace
hypothetical steps there)."""

from __future__ import annotations

import random

from brute_force import brute_force_solutions
from conftest import shared_file
from hypothesis import given, settings
from hypothesis import strategies as st
from test_grader import random_regions

from starbattle_core.formats import read_jsonl
from starbattle_core.grader import STARBATTLE_TECHNIQUES, Geometry, State, grade
from starbattle_core.grader.composite import crossing_cases, pair_cases
from starbattle_core.puzzle import Cells, Puzzle


def known_marks(solutions: list[Cells], all_cells: Cells, rng: random.Random, keep: float) -> State:
    """A random part of what every solution agrees on (stars in all, empty in all): marks a sound solver may hold."""
    always = all_cells
    anywhere = 0
    for solution in solutions:
        always &= solution
        anywhere |= solution
    never = all_cells & ~anywhere
    pick = sum(1 << cell for cell in range(all_cells.bit_length()) if rng.random() < keep)
    return State(always & pick, never & pick)


def check_sound(puzzle: Puzzle, rng: random.Random, keep: float) -> tuple[bool, bool]:
    """Whether pair cases and crossing cases decided an open cell; every cell they decide is decided so in every
    solution."""
    solutions = brute_force_solutions(puzzle)
    if not solutions:
        return False, False
    geometry = Geometry(puzzle)
    state = known_marks(solutions, geometry.all_cells, rng, keep)
    fired = []
    for found in (pair_cases(geometry, state, limit=40), crossing_cases(geometry, state, limit=40)):
        if found is not None:
            for solution in solutions:
                assert found.stars & ~solution == 0 and found.empties & solution == 0, found.sentence
        fired.append(found is not None and bool((found.stars | found.empties) & geometry.open_cells(state)))
    return fired[0], fired[1]


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([5, 6, 7]), keep=st.sampled_from([0.0, 0.3, 0.6]))
def test_two_unit_cases_hold_in_every_solution(seed: int, size: int, keep: float) -> None:
    """On any board with solutions and any marks every solution agrees with, what they prove holds in all."""
    check_sound(Puzzle.from_grid(random_regions(size, random.Random(seed)), 1), random.Random(seed), keep)


def test_two_unit_cases_are_sound_and_fire_on_boards_with_one_solution_or_many() -> None:
    """The same check on 60 seeded boards (1-star 6x6 and 7x7, 2-star 8x8), counting where each fires, so the
    property has something to check."""
    pairs = crossings = 0
    for seed in range(60):
        size, stars = ((6, 1), (7, 1), (8, 2))[seed % 3]
        puzzle = Puzzle.from_grid(random_regions(size, random.Random(seed)), stars)
        pair, crossing = check_sound(puzzle, random.Random(seed), 0.3)
        pairs += pair
        crossings += crossing
    assert pairs >= 10 and crossings >= 10, (pairs, crossings)


def test_pair_cases_on_a_constructed_board() -> None:
    """Regions A (rows 1-2) and C (rows 3-4) share columns 1-4 of an 8x8 one-star board. A keeps R1C4 and R2C3, C
    keeps R3C2 and R3C4: alone each has two ways, but R2C3 touches both of C's cells and R1C4 fills column 4
    (R3C4's), so together they fit one way: R1C4 and R3C2 are stars."""
    rows = ["AAAABBBB", "AAAABBBB", "CCCCDDDD", "CCCCDDDD", "EEEEFFFF", "EEEEFFFF", "GGGGHHHH", "GGGGHHHH"]
    letters: dict[str, int] = {}
    geometry = Geometry(Puzzle.from_grid([[letters.setdefault(ch, len(letters)) for ch in row] for row in rows], 1))

    def mask(*names: tuple[int, int]) -> Cells:
        return sum(1 << ((r - 1) * 8 + c - 1) for r, c in names)

    region_a, region_c = geometry.regions[0].mask, geometry.regions[2].mask
    keep = mask((1, 4), (2, 3), (3, 2), (3, 4))
    # Regions B and D are marked out, so that pair A and C is the only one to weigh.
    state = State(0, ((region_a | region_c) & ~keep) | geometry.regions[1].mask | geometry.regions[3].mask)
    found = pair_cases(geometry, state, limit=12)
    assert found is not None and found.units == ("region A", "region C")
    assert found.stars == mask((1, 4), (3, 2)) and found.empties & mask((2, 3))
    assert "fit one way" in found.sentence
    # On the bare board every pair has too many joint ways to weigh.
    assert pair_cases(geometry, State(0, 0), limit=12) is None


def test_pair_cases_replace_trial_steps_on_archive_hard_boards() -> None:
    """Golden: on real 10x10 hard boards the solver uses pair cases, and without them the same boards need more
    hypothetical work (the solution is the same either way)."""
    without = tuple(t for t in STARBATTLE_TECHNIQUES if t.rule not in (pair_cases, crossing_cases))
    wanted = {"6:1033", "6:10016", "6:16768"}
    boards = [p for p in read_jsonl(str(shared_file("starbattle/archive.jsonl"))) if p.id in wanted]
    assert len(boards) == len(wanted)
    for puzzle in boards:
        with_pairs = grade(puzzle, chains=False)
        plain = grade(puzzle, techniques=without, chains=False)
        assert with_pairs.solved and plain.solved and with_pairs.stars == plain.stars == puzzle.solution
        assert {"CP12", "CP40", "CX12", "CX40"} & {s.code for s in with_pairs.steps}
        trial = sum(s.cost for s in with_pairs.steps if s.code.startswith(("H", "F")))
        trial_before = sum(s.cost for s in plain.steps if s.code.startswith(("H", "F")))
        assert trial < trial_before
