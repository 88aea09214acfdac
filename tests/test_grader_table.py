"""The technique tables are rows in solve order: sorted by cost, codes and names unique, Queens costs their tiers'
weights; the solver tries the rows in table order."""

from __future__ import annotations

import itertools

import pytest

from starbattle_core.grader import QUEENS_TECHNIQUES, STARBATTLE_TECHNIQUES, Geometry, State, Technique
from starbattle_core.grader.solver import next_step
from starbattle_core.grader.table import QUEENS_TIER_WEIGHTS
from starbattle_core.puzzle import Puzzle


@pytest.mark.parametrize("table", [STARBATTLE_TECHNIQUES, QUEENS_TECHNIQUES], ids=["starbattle", "queens"])
def test_the_table_is_written_in_solve_order(table: tuple[Technique, ...]) -> None:
    """HoDoKu's style: the rows are in the order the solver tries them, cheapest first."""
    out_of_order = [(a.code, b.code) for a, b in itertools.pairwise(table) if b.cost < a.cost]
    assert not out_of_order
    assert len({t.code for t in table}) == len(table) and len({t.name for t in table}) == len(table)


def test_queens_rows_cost_their_tier() -> None:
    assert all(t.cost == QUEENS_TIER_WEIGHTS[t.tier] for t in QUEENS_TECHNIQUES)
    assert [t.tier for t in QUEENS_TECHNIQUES] == sorted(t.tier for t in QUEENS_TECHNIQUES)
    assert all(t.tier == 0 for t in STARBATTLE_TECHNIQUES)


def test_the_solver_takes_the_first_row_that_decides_a_cell() -> None:
    """Two rows that both apply on the same marks: the step is the earlier one, whichever it is."""
    geometry = Geometry(
        Puzzle.from_grid([[0, 0, 1, 1, 1], [0, 2, 2, 1, 1], [2, 2, 3, 3, 1], [4, 2, 3, 3, 3], [4, 4, 4, 3, 3]], 1)
    )
    star = 1 << 12  # R3C3 a star: its neighbours are empty, and its row, column and region are complete
    rows = [t for t in STARBATTLE_TECHNIQUES if t.code in ("SN", "UC")]
    for table in (rows, rows[::-1]):
        step = next_step(geometry, State(star, 0), table)
        assert step is not None and step.code == table[0].code


def test_hypothetical_codes_name_their_family() -> None:
    for t in STARBATTLE_TECHNIQUES:
        assert (t.family == "hypothetical") == t.code.startswith(("H", "F")), t.code


def test_a_geometry_is_immutable_and_keeps_its_recall_apart() -> None:
    geometry = Geometry(
        Puzzle.from_grid([[0, 0, 1, 1, 1], [0, 2, 2, 1, 1], [2, 2, 3, 3, 1], [4, 2, 3, 3, 3], [4, 4, 4, 3, 3]], 1)
    )
    with pytest.raises(AttributeError, match="immutable"):
        geometry.rows = ()
    with pytest.raises(AttributeError, match="immutable"):
        geometry.memo = {}
    assert geometry.recall is not Geometry(geometry.puzzle).recall
