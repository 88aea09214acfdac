"""The layout bank: exact counts, enumeration order, rank/unrank, uniform seeded sampling, bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import REPO, shared_file
from hypothesis import given, settings
from hypothesis import strategies as st

from starbattle_core.formats import read_jsonl
from starbattle_core.layouts import (
    MAX_LAYOUT_SIZE,
    MAX_ONE_STAR_LAYOUT_SIZE,
    cells_to_layout,
    count_layouts,
    enumerate_layouts,
    layout_bank,
    layout_problem,
    layout_to_cells,
    rank_layout,
    sample_layouts,
    unrank_layout,
)
from starbattle_core.puzzle import InputError, layouts_exist

LAYOUT_COUNTS = REPO.parent / "shared" / "docs" / "layout_counts.txt"


def golden_counts() -> list[tuple[int, int, int]]:
    if not LAYOUT_COUNTS.exists():
        raise FileNotFoundError(f"{LAYOUT_COUNTS} is missing: clone the project beside shared/")
    lines = [line.split() for line in LAYOUT_COUNTS.read_text().splitlines()]
    return [(int(n), int(k), int(c)) for n, k, c in (x for x in lines if x and not x[0].startswith("#"))]


GOLDEN = golden_counts()


def reference_layouts(size: int, stars: int) -> list[tuple[int, ...]]:
    """Every layout by plain backtracking over row masks in increasing order (so in lexicographic order),
    checking rows, columns and touching directly; no counting tables."""
    rows = [m for m in range(1 << size) if m.bit_count() == stars and not m & (m << 1)]
    found: list[tuple[int, ...]] = []

    def extend(prefix: list[int], columns: list[int]) -> None:
        if len(prefix) == size:
            if all(c == stars for c in columns):
                found.append(tuple(prefix))
            return
        for m in rows:
            if prefix and prefix[-1] & (m | (m << 1) | (m >> 1)):
                continue
            added = [columns[c] + ((m >> c) & 1) for c in range(size)]
            if max(added) <= stars:
                extend([*prefix, m], added)

    extend([], [0] * size)
    return found


def bank_problems(bank: np.ndarray, stars: int) -> list[str]:
    """Vectorised validity check of a (count, size) bank: per-row stars, touching, per-column stars."""
    size = bank.shape[1]
    rows = bank.astype(np.int64)
    problems = []
    per_row = sum((rows >> c) & 1 for c in range(size))
    if (per_row != stars).any():
        problems.append("a row with the wrong number of stars")
    if (rows & (rows << 1)).any():
        problems.append("touching stars in a row")
    if size > 1 and (rows[:, :-1] & (rows[:, 1:] | (rows[:, 1:] << 1) | (rows[:, 1:] >> 1))).any():
        problems.append("touching stars across rows")
    per_column = np.stack([((rows >> c) & 1).sum(axis=1) for c in range(size)], axis=1)
    if (per_column != stars).any():
        problems.append("a column with the wrong number of stars")
    return problems


def strictly_increasing(bank: np.ndarray) -> bool:
    """Whether consecutive layouts are strictly increasing, comparing row masks lexicographically."""
    if len(bank) < 2:
        return True
    earlier, later = bank[:-1].astype(np.int64), bank[1:].astype(np.int64)
    differs = earlier != later
    first = np.argmax(differs, axis=1)
    at = np.arange(len(first))
    return bool(differs.any(axis=1).all() and (earlier[at, first] < later[at, first]).all())


# --- counts -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "stars", "expected"), GOLDEN, ids=[f"{n}x{n}-{k}" for n, k, _ in GOLDEN])
def test_count_matches_golden_file(size: int, stars: int, expected: int) -> None:
    assert count_layouts(size, stars) == expected


def test_golden_file_has_the_big_boards() -> None:
    assert (11, 2, 31_197_434) in GOLDEN and (12, 1, 63_779_034) in GOLDEN


def test_one_star_counts_follow_the_oeis_recurrence() -> None:
    # A002464: a(n) = (n+1) a(n-1) - (n-2) a(n-2) - (n-5) a(n-3) + (n-3) a(n-4), a(0..3) = 1, 1, 0, 0.
    a = [1, 1, 0, 0]
    for n in range(4, 16):
        a.append((n + 1) * a[n - 1] - (n - 2) * a[n - 2] - (n - 5) * a[n - 3] + (n - 3) * a[n - 4])
    assert [count_layouts(n, 1) for n in range(1, 16)] == a[1:]


# Exact counts of these take seconds each (the bench prints them); their existence is shown by a witness.
SLOW_TO_COUNT = {(12, 2), (13, 2), (14, 2), (14, 3)}


def witness_layout(size: int, stars: int) -> tuple[int, ...] | None:
    """The first layout a depth-first search finds. It prunes a prefix when some column, or some two
    neighbouring columns together, still need more stars than ceil(rows left / 2), and remembers dead ends."""
    rows = [m for m in range(1 << size) if m.bit_count() == stars and not m & (m << 1)]
    dead: set[tuple[int, tuple[int, ...]]] = set()

    def extend(prefix: tuple[int, ...], columns: tuple[int, ...]) -> tuple[int, ...] | None:
        left = size - len(prefix)
        if not left:
            return prefix
        room = (left + 1) // 2
        need = [stars - c for c in columns]
        if max(need) > room or any(a + b > room for a, b in itertools.pairwise(need)):
            return None
        if (prefix[-1] if prefix else 0, columns) in dead:
            return None
        for m in rows:
            if prefix and prefix[-1] & (m | (m << 1) | (m >> 1)):
                continue
            added = tuple(columns[c] + ((m >> c) & 1) for c in range(size))
            if max(added) <= stars:
                done = extend((*prefix, m), added)
                if done:
                    return done
        dead.add((prefix[-1] if prefix else 0, columns))
        return None

    return extend((), (0,) * size)


@pytest.mark.parametrize("size", range(1, MAX_LAYOUT_SIZE + 1))
def test_layouts_exist_rule_agrees_with_the_counter(size: int) -> None:
    for stars in range(1, 5):
        if stars > size:
            assert not layouts_exist(size, stars)
            with pytest.raises(InputError, match="out of range"):
                count_layouts(size, stars)
        elif (size, stars) in SLOW_TO_COUNT:
            assert layouts_exist(size, stars)
            witness = witness_layout(size, stars)
            assert witness is not None and layout_problem(np.array(witness), stars) == ""
        else:
            assert layouts_exist(size, stars) == (count_layouts(size, stars) > 0), (size, stars)


# --- enumeration and the bank -------------------------------------------------------------------------

SMALL = [(1, 1), (2, 1), (4, 1), (5, 1), (6, 1), (7, 1), (7, 2), (8, 2), (9, 2), (12, 3)]


@pytest.mark.parametrize(("size", "stars"), SMALL)
def test_enumeration_equals_backtracking_reference(size: int, stars: int) -> None:
    enumerated = [tuple(int(m) for m in layout) for layout in enumerate_layouts(size, stars)]
    assert enumerated == reference_layouts(size, stars)
    assert len(enumerated) == count_layouts(size, stars)


@pytest.mark.parametrize(("size", "stars"), [(3, 1), (4, 1), (5, 1), (6, 1)])
def test_count_equals_brute_force_over_all_placements(size: int, stars: int) -> None:
    # Every choice of one star per row (no ordering, no pruning), checked by the plain validity rule.
    found = 0
    for columns in itertools.product(range(size), repeat=size):
        rows = np.array([1 << c for c in columns], dtype=np.uint32)
        found += layout_problem(rows, stars) == ""
    assert found == count_layouts(size, stars)


@pytest.mark.parametrize(("size", "stars"), [(10, 2), (9, 1), (13, 3)])
def test_bank_is_every_layout_once_in_order(size: int, stars: int) -> None:
    bank = layout_bank(size, stars)
    assert bank.dtype == np.uint32 and bank.shape == (count_layouts(size, stars), size)
    assert not bank.flags.writeable  # shared between callers
    assert bank_problems(bank, stars) == []
    assert strictly_increasing(bank)


def test_bank_refuses_huge_banks_naming_the_count() -> None:
    with pytest.raises(InputError, match="5,296,790 layouts"):
        layout_bank(11, 1)


def test_enumerating_an_impossible_board_yields_nothing() -> None:
    assert list(enumerate_layouts(7, 2)) == []


def test_enumerating_past_the_bank_limit_unranks_in_order() -> None:
    head = np.array(list(itertools.islice(enumerate_layouts(11, 1), 40_000)))
    assert bank_problems(head, 1) == [] and strictly_increasing(head)
    assert np.array_equal(head[0], unrank_layout(11, 1, 0))
    assert np.array_equal(head[-1], unrank_layout(11, 1, 39_999))


def test_enumerate_checks_its_input_when_called() -> None:
    with pytest.raises(InputError, match="size 15 out of range"):
        enumerate_layouts(15, 3)


# --- rank and unrank ----------------------------------------------------------------------------------

RANKED = [(6, 1), (9, 2), (10, 2), (11, 2), (12, 1), (13, 3), (14, 1)]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(RANKED), st.floats(min_value=0, max_value=1, exclude_max=True))
def test_rank_inverts_unrank(board: tuple[int, int], where: float) -> None:
    size, stars = board
    index = min(int(where * count_layouts(size, stars)), count_layouts(size, stars) - 1)
    layout = unrank_layout(size, stars, index)
    assert layout.dtype == np.uint32 and layout.shape == (size,)
    assert layout_problem(layout, stars) == ""
    assert rank_layout(layout, stars) == index


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=146_509))
def test_unrank_is_the_enumeration_order(index: int) -> None:
    assert np.array_equal(unrank_layout(10, 2, index), layout_bank(10, 2)[index])


def test_unrank_ends() -> None:
    bank = layout_bank(10, 2)
    assert np.array_equal(unrank_layout(10, 2, 0), bank[0])
    assert np.array_equal(unrank_layout(10, 2, 146_509), bank[-1])
    with pytest.raises(InputError, match="out of range"):
        unrank_layout(10, 2, 146_510)


def test_rank_refuses_a_non_layout() -> None:
    rows = unrank_layout(10, 2, 1234).copy()
    rows[0] = rows[0] >> 1 if rows[0] & 1 == 0 else rows[0] << 1  # moves both stars of row 1: columns break
    with pytest.raises(InputError, match="not a 10x10 2-star layout: column"):
        rank_layout(rows, 2)


# --- sampling -----------------------------------------------------------------------------------------


def chi_square(observed: np.ndarray, share: np.ndarray | None = None) -> float:
    """Pearson's statistic of observed counts against `share` (each bin's probability; equal by default)."""
    expected = observed.sum() * (np.full(len(observed), 1 / len(observed)) if share is None else share)
    return float(((observed - expected) ** 2 / expected).sum())


# Chi-square with 89 degrees of freedom: mean 89, 99.99th percentile about 147 (Wilson-Hilferty).
CHI_SQUARE_LIMIT_89 = 147.0


def sample_ranks(size: int, stars: int, layouts: np.ndarray) -> np.ndarray:
    bank = layout_bank(size, stars)
    position = {tuple(int(m) for m in row): i for i, row in enumerate(bank)}
    return np.array([position[tuple(int(m) for m in row)] for row in layouts])


def test_sampling_is_uniform_on_six_by_six() -> None:
    ranks = sample_ranks(6, 1, sample_layouts(6, 1, 18_000, 20261129))
    assert chi_square(np.bincount(ranks, minlength=90)) < CHI_SQUARE_LIMIT_89


def test_sampling_is_uniform_over_the_ten_by_ten_bank() -> None:
    # 20,000 draws of 10x10 2-star, their enumeration positions cut into 100 bins of about 1,465 layouts.
    bank = layout_bank(10, 2)
    position = {row.tobytes(): i for i, row in enumerate(bank)}
    ranks = np.array([position[row.tobytes()] for row in sample_layouts(10, 2, 20_000, 99)])
    bins = ranks * 100 // len(bank)
    share = np.bincount(np.arange(len(bank)) * 100 // len(bank)) / len(bank)
    # Chi-square with 99 degrees of freedom: 99.99th percentile about 160.
    assert chi_square(np.bincount(bins, minlength=100), share) < 160.0


def test_chi_square_catches_a_row_by_row_walk() -> None:
    # The tempting sampler (pick each row uniformly among rows that still lead somewhere) is not uniform;
    # the same threshold must reject it, or the uniformity test above could not fail.
    bank = layout_bank(6, 1)
    chance = np.ones(len(bank))
    for r in range(6):
        for prefix in {tuple(x) for x in bank[:, :r].tolist()}:
            below = np.flatnonzero((bank[:, :r] == prefix).all(axis=1))
            chance[below] /= len(np.unique(bank[below, r]))
    assert abs(chance.sum() - 1) < 1e-9
    walked = np.random.default_rng(7).choice(len(bank), size=18_000, p=chance)
    assert chi_square(np.bincount(walked, minlength=90)) > CHI_SQUARE_LIMIT_89


def test_sampling_big_boards_is_valid_and_spread() -> None:
    for size, stars in [(11, 2), (12, 1)]:
        layouts = sample_layouts(size, stars, 400, 5)
        assert bank_problems(layouts, stars) == []
        ranks = np.array([rank_layout(x, stars) for x in layouts[:100]])
        # 100 uniform ranks: their mean sits near the middle (sd of the mean is total / sqrt(1200)).
        assert abs(ranks.mean() / count_layouts(size, stars) - 0.5) < 0.15


def test_sampling_is_deterministic_by_seed() -> None:
    first = sample_layouts(10, 2, 50, 42)
    assert first.shape == (50, 10) and first.dtype == np.uint32
    assert np.array_equal(first, sample_layouts(10, 2, 50, 42))
    assert np.array_equal(first, sample_layouts(10, 2, 50, np.random.default_rng(42)))
    assert not np.array_equal(first, sample_layouts(10, 2, 50, 43))
    assert sample_layouts(10, 2, 0, 1).shape == (0, 10)


# --- the real puzzles ----------------------------------------------------------------------------------

REAL_PUZZLES = [
    "starbattle/archive.jsonl",
    "starbattle/handmade.jsonl",
    "queens/linkedin.jsonl",
    "queens/community.jsonl",
]


@pytest.mark.parametrize("relative", REAL_PUZZLES)
def test_every_real_solution_is_a_layout(relative: str) -> None:
    # Each published solution is a layout; where the tables are cheap (no 14x14 3-star, nothing past 14x14),
    # its rank unranks back to it.
    ranked = 0
    for puzzle in read_jsonl(str(shared_file(relative))):
        assert puzzle.solution is not None, puzzle.id
        rows = cells_to_layout(puzzle.solution, puzzle.size)
        assert layout_problem(rows, puzzle.stars) == "", puzzle.id
        assert layout_to_cells(rows) == puzzle.solution
        if puzzle.size <= 14 and puzzle.stars < 3 and ranked < 12:
            assert np.array_equal(unrank_layout(puzzle.size, puzzle.stars, rank_layout(rows, puzzle.stars)), rows)
            ranked += 1
    assert ranked


# --- cells and bad input ------------------------------------------------------------------------------


def test_layout_cells_round_trip() -> None:
    layout = unrank_layout(10, 2, 777)
    cells = layout_to_cells(layout)
    assert cells.bit_count() == 20
    for r in range(10):
        for c in range(10):
            assert bool(cells >> (r * 10 + c) & 1) == bool(int(layout[r]) >> c & 1)
    assert np.array_equal(cells_to_layout(cells, 10), layout)
    with pytest.raises(InputError, match="off the 10x10 board"):
        cells_to_layout(1 << 100, 10)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: count_layouts(0, 1), "size 0 out of range"),
        (lambda: count_layouts(MAX_ONE_STAR_LAYOUT_SIZE + 1, 1), "size 19 out of range 1..18"),
        (lambda: count_layouts(MAX_LAYOUT_SIZE + 1, 2), "size 15 out of range 1..14 for 2 stars per unit"),
        (lambda: count_layouts(8, 0), "stars 0 out of range"),
        (lambda: sample_layouts(7, 2, 3, 1), "no valid layout exists for a 7x7 board with 2 stars"),
        (lambda: layout_bank(3, 1), "no valid layout exists for a 3x3 board"),
        (lambda: sample_layouts(8, 1, -1, 1), "count -1"),
        (lambda: sample_layouts(8, 1, 5, None), "needs a seed"),
        (lambda: unrank_layout(8, 1, -1), "index -1 out of range 0..5241"),
        (lambda: rank_layout(np.array([1, 4, 1]), 1), "no valid layout exists for a 3x3 board"),
    ],
)
def test_bad_input_is_one_clear_line(call, message: str) -> None:
    with pytest.raises(InputError, match=message) as caught:
        call()
    assert "\n" not in str(caught.value)
