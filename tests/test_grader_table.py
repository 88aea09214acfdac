"""The technique tables are literal rows in solve order: sorted by cost, codes unique, every row enabled."""

from __future__ import annotations

import inspect
import itertools

import pytest

from starbattle_core.grader import QUEENS_TECHNIQUES, STARBATTLE_TECHNIQUES, Technique, table


@pytest.mark.parametrize("table", [STARBATTLE_TECHNIQUES, QUEENS_TECHNIQUES], ids=["starbattle", "queens"])
def test_the_table_is_written_in_solve_order(table: tuple[Technique, ...]) -> None:
    costs = [t.cost for t in table]
    out_of_order = [(a.code, b.code) for a, b in itertools.pairwise(table) if b.cost < a.cost]
    assert not out_of_order and costs == sorted(costs)
    assert len({t.code for t in table}) == len(table) and len({t.name for t in table}) == len(table)
    assert all(t.enabled for t in table)


def test_every_row_is_written_out_in_the_source_in_solve_order() -> None:
    """HoDoKu's style: a reader finds each technique's row, with its code as a literal, in table.py, in the order the
    solver tries them (no row built by a loop or a format string)."""
    source = inspect.getsource(table)
    positions = [source.find(f'"{t.code}"') for t in STARBATTLE_TECHNIQUES + QUEENS_TECHNIQUES]
    assert -1 not in positions and positions == sorted(positions)


def test_hypothetical_codes_name_their_family() -> None:
    for t in STARBATTLE_TECHNIQUES:
        assert (t.family == "hypothetical") == t.code.startswith(("H", "F")), t.code


def test_a_geometry_is_immutable_and_keeps_its_recall_apart() -> None:
    from starbattle_core.grader import Geometry
    from starbattle_core.puzzle import Puzzle

    geometry = Geometry(
        Puzzle.from_grid([[0, 0, 1, 1, 1], [0, 2, 2, 1, 1], [2, 2, 3, 3, 1], [4, 2, 3, 3, 3], [4, 4, 4, 3, 3]], 1)
    )
    with pytest.raises(AttributeError, match="immutable"):
        geometry.rows = ()
    with pytest.raises(AttributeError, match="immutable"):
        geometry.memo = {}
    assert geometry.recall is not Geometry(geometry.puzzle).recall
