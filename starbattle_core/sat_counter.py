"""The counter's tail: a board the search has not settled within its node budget is finished by a SAT solver.

Measured on the archive's 14x14 3-star hard boards (bench/bench_counter.py prints both): there the search's tree,
not its node, is what costs (the slowest boards take thousands of nodes at about 0.2 ms each, however strong the
propagation: failed-literal probing cut the nodes 40-fold and tripled the time), while a conflict-driven SAT solver
learns from every dead end. So the search runs first (it is faster on everything small, and on most boards settles
in a few nodes) and, past its budget, hands the board as it propagated it at the root to the solver.

The solver is Gluecard 4 (Glucose 4 with native cardinality constraints) from python-sat: a variable per open cell
(true: a star), "at most need" on the stars and "at most size - need" on the empty cells of every row, column and
region, and "not both" on every pair of touching open cells. Native cardinality beat every clause encoding tried
(sequential counter, totalizer, sorting network, with CaDiCaL, Glucose and MiniSat) by 2-3x. Each solution found is
blocked (not all of its stars again) before the next call, so the solutions are distinct and, when the solver answers
"unsatisfiable", the count is exhaustive.
"""

from __future__ import annotations

from collections.abc import Iterator

from pysat.solvers import Solver

from .board_tables import BoardGeometry
from .puzzle import Cells

SOLVER = "gluecard4"


def sat_solutions(tables: BoardGeometry, stars: Cells, open_cells: Cells, limit: int) -> Iterator[Cells]:
    """Up to `limit` distinct completions of a board state (every solution's full star set), in the solver's order,
    each as soon as the solver finds it.

    Fewer than `limit` means there are no others. `stars` are placed; `open_cells` undecided; every other cell empty.
    """
    cells = []
    rest = open_cells
    while rest:
        bit = rest & -rest
        rest ^= bit
        cells.append(bit.bit_length() - 1)
    variable = {cell: index + 1 for index, cell in enumerate(cells)}
    found = 0
    with Solver(name=SOLVER) as solver:
        for unit in tables.units:
            need = tables.stars - (stars & unit).bit_count()
            literals = [variable[cell] for cell in cells if unit >> cell & 1]
            if not 0 <= need <= len(literals):
                return
            if literals:
                solver.add_atmost(literals, need)
                solver.add_atmost([-literal for literal in literals], len(literals) - need)
        for cell in cells:
            later = tables.closes[cell] & open_cells & ~((2 << cell) - 1)  # each touching pair once
            while later:
                bit = later & -later
                later ^= bit
                solver.add_clause([-variable[cell], -variable[bit.bit_length() - 1]])
        while found < limit and solver.solve():
            model = solver.get_model() or []
            solution = stars
            for cell in cells:
                if model[variable[cell] - 1] > 0:
                    solution |= 1 << cell
            found += 1
            yield solution
            blocking = [-variable[cell] for cell in cells if solution >> cell & 1]
            if not blocking:  # no star left to place: that one state is the only solution
                break
            solver.add_clause(blocking)
