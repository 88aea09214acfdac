"""The solution counter: against a brute-force reference on random small boards, and on every real puzzle."""

from __future__ import annotations

import json
import random

import pytest
from brute_force import all_layouts, brute_force_solutions
from conftest import shared_file
from hypothesis import given, settings
from hypothesis import strategies as st

from starbattle_core.counter import SAT_AFTER, CountResult, count_solutions
from starbattle_core.formats import puzzle_from_json, read_jsonl
from starbattle_core.puzzle import InputError, Puzzle, solution_problems

# --- random boards --------------------------------------------------------------------------------------------


def grow_regions(size: int, seeds: list[int], rng: random.Random) -> list[int]:
    """Grow one connected region from each seed cell, a random unassigned neighbour at a time."""
    regions = [-1] * (size * size)
    for index, cell in enumerate(seeds):
        regions[cell] = index
    frontier = [cell for cell in range(size * size) if regions[cell] < 0]
    while frontier:
        options = []
        for cell in frontier:
            r, c = divmod(cell, size)
            touching = {
                regions[rr * size + cc]
                for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                if 0 <= rr < size and 0 <= cc < size and regions[rr * size + cc] >= 0
            }
            if touching:
                options.append((cell, sorted(touching)))
        cell, touching = options[rng.randrange(len(options))]
        regions[cell] = rng.choice(touching)
        frontier.remove(cell)
    return regions


def region_map(size: int, stars: int, seed: int) -> list[int]:
    """A random connected region map. Odd seeds grow the regions around a random layout's stars (so the board has
    at least that solution when pairing succeeds); even seeds grow them from random cells (often no solution)."""
    rng = random.Random(seed)
    if seed % 2 == 0:
        return grow_regions(size, rng.sample(range(size * size), size), rng)
    layout = sorted(r * size + c for r, c in rng.choice(all_layouts(size, stars)))
    if stars == 1:
        return grow_regions(size, layout, rng)
    pieces = grow_regions(size, layout, rng)  # one piece per star, to be paired into regions
    for _ in range(20):
        pairing = pair_adjacent_pieces(size, pieces, len(layout), rng)
        if pairing is not None:
            return [pairing[piece] for piece in pieces]
    return grow_regions(size, rng.sample(range(size * size), size), rng)


def pair_adjacent_pieces(size: int, pieces: list[int], count: int, rng: random.Random) -> list[int] | None:
    """Join the pieces two by two into regions (each pair touching), or None when the random matching gets stuck."""
    touching: dict[int, set[int]] = {piece: set() for piece in range(count)}
    for cell, piece in enumerate(pieces):
        r, c = divmod(cell, size)
        for rr, cc in ((r + 1, c), (r, c + 1)):
            if rr < size and cc < size and pieces[rr * size + cc] != piece:
                touching[piece].add(pieces[rr * size + cc])
                touching[pieces[rr * size + cc]].add(piece)
    region = [-1] * count
    order = list(range(count))
    rng.shuffle(order)
    next_region = 0
    for piece in order:
        if region[piece] >= 0:
            continue
        partners = sorted(p for p in touching[piece] if region[p] < 0)
        if not partners:
            return None
        partner = rng.choice(partners)
        region[piece] = region[partner] = next_region
        next_region += 1
    return region


@st.composite
def boards(draw: st.DrawFn, shape: tuple[int, int]) -> tuple[Puzzle, int, int]:
    """A random board of the given (size, stars), with random givens, and random extra forced stars/empty cells."""
    size, stars = shape
    regions = region_map(size, stars, draw(st.integers(0, 10**6)))
    puzzle = Puzzle(size, stars, tuple(regions))
    solutions = brute_force_solutions(puzzle)
    cells = st.integers(0, size * size - 1)
    # Givens: a star from a solution when there is one (keeps the board solvable), empties anywhere.
    given_stars = 0
    if solutions and draw(st.booleans()):
        solution = solutions[draw(st.integers(0, len(solutions) - 1))]
        star_cells = [cell for cell in range(size * size) if solution >> cell & 1]
        given_stars = 1 << draw(st.sampled_from(star_cells))
    given_empty = 0
    for cell in draw(st.lists(cells, max_size=3)):
        given_empty |= 1 << cell
    given_empty &= ~given_stars
    puzzle = Puzzle(size, stars, tuple(regions), given_stars=given_stars, given_empty=given_empty)
    extra_stars = 0
    extra_empty = 0
    if draw(st.booleans()):
        for cell in draw(st.lists(cells, max_size=2)):
            extra_stars |= 1 << cell
        for cell in draw(st.lists(cells, max_size=2)):
            extra_empty |= 1 << cell
    return puzzle, extra_stars, extra_empty


SHAPES = [(5, 1), (6, 1), (7, 1), (8, 2), (9, 2)]


# The pure search (the reference), and the SAT solver taking over right after the root's propagation.
ENGINES = {"search": None, "sat": 0}


def check_against_brute_force(puzzle: Puzzle, extra_stars: int, extra_empty: int, sat_after: int | None) -> None:
    expected = brute_force_solutions(puzzle, extra_stars, extra_empty)
    full = count_solutions(puzzle, limit=len(expected) + 1, stars=extra_stars, empty=extra_empty, sat_after=sat_after)
    assert full.exact
    assert full.count == len(expected)
    assert sorted(full.solutions) == expected
    for solution in full.solutions:
        assert solution_problems(puzzle, solution) == []
    for limit in (1, 2):
        capped = count_solutions(puzzle, limit=limit, stars=extra_stars, empty=extra_empty, sat_after=sat_after)
        assert capped.count == min(limit, len(expected))
        assert capped.exact == (len(expected) < limit)
        assert set(capped.solutions) <= set(expected)
        assert len(set(capped.solutions)) == capped.count


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("shape", SHAPES, ids=[f"{n}x{n}-{k}star" for n, k in SHAPES])
@settings(max_examples=40, deadline=None, derandomize=True)
@given(data=st.data())
def test_counts_match_brute_force(shape: tuple[int, int], engine: str, data: st.DataObject) -> None:
    puzzle, extra_stars, extra_empty = data.draw(boards(shape))
    check_against_brute_force(puzzle, extra_stars, extra_empty, ENGINES[engine])


def test_random_boards_cover_zero_one_and_many_solutions() -> None:
    """The generator behind the property tests does produce every kind of board the counter must handle."""
    seen = set()
    for size, stars in SHAPES:
        for seed in range(30):
            count = len(brute_force_solutions(Puzzle(size, stars, tuple(region_map(size, stars, seed)))))
            seen.add((stars, min(count, 2)))
    assert seen == {(1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2)}


# --- hand-made cases ------------------------------------------------------------------------------------------


def stripes(size: int, stars: int = 1) -> Puzzle:
    """Region i is row i: every layout is a solution."""
    return Puzzle(size, stars, tuple(cell // size for cell in range(size * size)))


def test_limit_stops_the_search() -> None:
    puzzle = stripes(6)  # 90 layouts, all solutions
    result = count_solutions(puzzle, limit=5, sat_after=None)
    assert (result.count, result.exact, len(result.solutions)) == (5, False, 5)
    everything = count_solutions(puzzle, limit=1000, sat_after=None)
    assert (everything.count, everything.exact) == (90, True)
    assert result.nodes < everything.nodes


def test_limit_stops_the_sat_solver() -> None:
    puzzle = stripes(6)
    result = count_solutions(puzzle, limit=5)
    assert (result.count, result.exact, len(set(result.solutions)), result.engine) == (5, False, 5, "sat")
    everything = count_solutions(puzzle, limit=90)  # exactly as many as there are: not known to be all
    assert (everything.count, everything.exact) == (90, False)
    assert set(everything.solutions) == set(count_solutions(puzzle, limit=1000, sat_after=None).solutions)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("size", "stars", "layouts"), [(7, 1, 646), (8, 2, 2), (9, 2, 664)])
def test_striped_boards_have_every_layout_as_a_solution(size: int, stars: int, layouts: int, engine: str) -> None:
    """The layout counts of ../shared/docs/layout_counts.txt, found one by one, each passing the verifier."""
    puzzle = stripes(size, stars)
    result = count_solutions(puzzle, limit=10_000, sat_after=ENGINES[engine])
    assert (result.count, result.exact, result.engine) == (layouts, True, engine)
    assert len(set(result.solutions)) == layouts
    for solution in result.solutions:
        assert solution_problems(puzzle, solution) == []


def test_extra_stars_and_empty_cells_restrict_the_count() -> None:
    puzzle = stripes(6)
    corner = 1 << 0
    with_star = count_solutions(puzzle, limit=1000, stars=corner)
    without = count_solutions(puzzle, limit=1000, empty=corner)
    assert with_star.exact and without.exact
    assert with_star.count + without.count == 90
    assert all(solution & corner for solution in with_star.solutions)
    assert not any(solution & corner for solution in without.solutions)


def test_contradictory_extra_cells_give_no_solution() -> None:
    puzzle = stripes(6)
    touching = (1 << 0) | (1 << 7)  # R1C1 and R2C2
    result = count_solutions(puzzle, stars=touching)
    assert (result.count, result.exact, result.solutions) == (0, True, ())
    assert count_solutions(puzzle, stars=1, empty=1).count == 0
    assert count_solutions(puzzle, stars=0b101).count == 0  # two stars in a 1-star row


def test_given_cells_of_the_puzzle_are_honoured() -> None:
    regions = tuple(cell // 6 for cell in range(36))
    puzzle = Puzzle(6, 1, regions, given_stars=1 << 2, given_empty=1 << 7)
    result = count_solutions(puzzle, limit=1000)
    assert result.exact
    assert sorted(result.solutions) == brute_force_solutions(puzzle)
    assert all(s & (1 << 2) and not s & (1 << 7) for s in result.solutions)


def test_forcing_a_real_puzzle_off_its_solution_leaves_nothing() -> None:
    puzzle = next(read_jsonl(str(shared_file("starbattle/handmade.jsonl"))))
    assert puzzle.solution is not None
    one_star = puzzle.solution & -puzzle.solution
    forbidden = count_solutions(puzzle, empty=one_star)
    assert (forbidden.count, forbidden.exact) == (0, True)
    others = puzzle.all_cells & ~puzzle.solution
    misplaced = count_solutions(puzzle, stars=others & -others)
    assert (misplaced.count, misplaced.exact) == (0, True)
    kept = count_solutions(puzzle, stars=one_star)
    assert (kept.count, kept.exact, kept.solutions) == (1, True, (puzzle.solution,))


def test_limit_below_one_is_rejected() -> None:
    with pytest.raises(InputError, match="limit"):
        count_solutions(stripes(5), limit=0)


# --- golden: every real puzzle is unique and its solution is the published one --------------------------------


GOLDEN_FILES = ["queens/linkedin.jsonl", "queens/community.jsonl", "starbattle/handmade.jsonl"]


def check_unique(puzzle: Puzzle, where: str, sat_after: int | None = SAT_AFTER) -> CountResult:
    result = count_solutions(puzzle, limit=2, sat_after=sat_after)
    assert (result.count, result.exact) == (1, True), f"{where} {puzzle.id}: {result.count} solutions"
    assert result.solutions[0] == puzzle.solution, f"{where} {puzzle.id}: another solution"
    return result


@pytest.mark.parametrize("name", GOLDEN_FILES)
def test_real_puzzles_have_exactly_their_published_solution(name: str) -> None:
    checked = 0
    for puzzle in read_jsonl(str(shared_file(name))):
        check_unique(puzzle, name)
        checked += 1
    assert checked > 10


def archive_boards() -> list[tuple[Puzzle, str]]:
    """Every board of the archive (read from ../shared/data, never copied) with its published label."""
    boards = []
    with open(shared_file("starbattle/archive.jsonl"), encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            obj = json.loads(line)
            boards.append((puzzle_from_json(obj, where=f"archive line {number}"), str(obj.get("label"))))
    return boards


def test_archive_boards_have_exactly_their_published_solution() -> None:
    # All 1,020 boards, the 150 14x14 hard ones included (what the root's propagation leaves open goes to SAT).
    checked = 0
    handed_to_sat = 0
    for puzzle, _label in archive_boards():
        result = check_unique(puzzle, "archive")
        checked += 1
        handed_to_sat += result.engine == "sat"
    assert checked == 1020
    assert 0 < handed_to_sat < checked  # both ways are exercised on real boards


@pytest.mark.slow
def test_archive_boards_by_the_pure_search() -> None:
    """The reference on its own (no SAT solver) settles archive boards too: every board up to 10x10 and every fourth
    14x14 one (the 14x14 boards are 22 of its 23 s of CPU; `bench/bench_counter.py --sat` counts them all)."""
    boards = [puzzle for puzzle, _label in archive_boards()]
    sample = [puzzle for puzzle in boards if puzzle.size < 14] + [puzzle for puzzle in boards if puzzle.size == 14][::4]
    for puzzle in sample:
        check_unique(puzzle, "archive (search only)", sat_after=None)
    assert len(sample) == 720 + 75
