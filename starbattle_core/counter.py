"""Count the solutions of a puzzle, stopping at a limit: the engine's uniqueness proof.

The search keeps two Cells ints: ``stars`` (cells that hold a star) and ``open`` (cells still undecided); every
other cell is empty. Propagation works on bit masks:

- a star empties its neighbours, and a unit that reaches its quota empties the rest of itself;
- a unit whose open cells can no longer reach its remaining need kills the branch, one whose open cells are exactly
  its remaining need fills them;
- a small region: every placement of its remaining stars is enumerated (memoised by its open cells); cells in no
  placement are empty, cells in all are stars, cells outside it touched by every placement are empty;
- no 2x2 block holds two stars: a unit whose open cells are covered by fewer blocks than it needs is dead; when the
  cover is exactly as large as the need, every block holds one star, so a block with one open cell is a star and
  the cells touching a whole block are empty (for a unit needing one star: the cells touching all its open cells);
- when the unit rules stall, pigeonhole on bands of rows and of columns (`pigeonhole.band_deductions`).

Then the search branches on the unit that gives the fewest branches: branch i puts the unit's first star on its
i-th open cell and empties the cells before it, so the branches are disjoint and together cover every solution.
The masks are the board's one geometry (`board_tables.board_geometry`, the grader's too); a node re-examines
only the units whose open cells changed.
A residual state (open cells, stars per unit) searched to the end is remembered with its completions, so a branch
that reaches it again is settled at once (a dead end, or its solutions found without search).

A search that passes `SAT_AFTER` nodes stops and hands the board, as propagated at the root, to a SAT solver
(`sat_counter`, which says why): by default as soon as the root has not settled the board. `sat_after=None` keeps
the pure search, the reference and the fallback. What was tried on the search itself, measured on the 14x14 3-star
hard boards (the tree, not the node, is the cost: about 0.2 ms a node, band pigeonhole 45% of it, unit rules 31%):
probing every open cell (failed literals) at every node cut the slowest board's tree from 3,094 nodes to 84 but
tripled the time; probing only at shallow depths, only the cells of the 1 or 3 tightest units, or with the unit rules
alone (no bands) did no better than no probing; earlier: star/empty branching, enumerating rows and columns like
regions, other branch orders (no gain), and remembering searched residual states (-14 to -21% in total, kept).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

from .board_tables import BoardGeometry, board_geometry, touching_all, way_families
from .pigeonhole import band_deductions
from .puzzle import Cells, InputError, Puzzle
from .sat_counter import sat_solutions

# Search nodes after which the SAT solver takes over. Measured on the archive and on Queens (docs/engine.md): handing
# over as soon as the root's propagation has not settled the board beat every larger budget tried (3, 10, 30, 60,
# 100, 300) on 10x10 and 14x14 and was level with them elsewhere; the boards the root settles (most small ones) never
# reach the solver.
SAT_AFTER = 0
# Solutions an enumeration (`Solutions`) takes from the SAT solver before the search goes on: each costs the solver a
# blocking clause and the enumeration an entry in the set the search skips, some 200 bytes on a 10x10 board in all.
SAT_HELD = 1_000


@dataclass(frozen=True)
class CountResult:
    """What a count found: ``count`` solutions (at most the limit), in the order found."""

    count: int
    exact: bool  # True when the search was exhaustive, so `count` is the true number of solutions
    solutions: tuple[Cells, ...]
    nodes: int  # search nodes (up to the hand-off when the SAT solver took over)
    ms: float
    engine: str = "search"  # "sat" when the search passed its budget and the SAT solver found the solutions


def count_solutions(
    puzzle: Puzzle, limit: int = 2, *, stars: Cells = 0, empty: Cells = 0, sat_after: int | None = SAT_AFTER
) -> CountResult:
    """Count the puzzle's solutions up to `limit`, honouring its givens plus the extra `stars` and `empty` cells.

    Returns the solutions found (in search order, or the SAT solver's), whether the count was exhaustive (it stops
    as soon as it reaches `limit`, and then `exact` is False), the number of search nodes and the time taken in
    milliseconds. Past `sat_after` search nodes the SAT solver finishes the count (None: the search alone).

    >>> from starbattle_core import cells_to_coords
    >>> from starbattle_core.formats import puzzle_from_json
    >>> board = puzzle_from_json({"size": 5, "stars": 1, "regions": ["AAABC", "AAABC", "AADBC", "AEDBC", "AEEBB"]})
    >>> found = count_solutions(board)
    >>> found.count, found.exact
    (1, True)
    >>> cells_to_coords(found.solutions[0], board.size)
    [(0, 3), (1, 0), (2, 2), (3, 4), (4, 1)]

    With ``limit=1`` the search stops at the first solution, so it cannot say whether there are more:

    >>> count_solutions(board, limit=1).exact
    False

    One cell moved from region A to region D, and the board has two solutions:

    >>> loose = puzzle_from_json({"size": 5, "stars": 1, "regions": ["AAABC", "AAABC", "ADDBC", "AEDBC", "AEEBB"]})
    >>> count_solutions(loose, limit=10).count
    2
    """
    if limit < 1:
        raise InputError(f"limit must be at least 1, not {limit}")
    if sat_after is not None and sat_after < 0:
        raise InputError(f"sat_after must be at least 0, not {sat_after}")
    start = time.perf_counter()
    tables = puzzle.geometry
    search = _Search(tables, limit, sat_after)
    forced_stars = puzzle.given_stars | stars
    forced_empty = puzzle.given_empty | empty
    open_cells = puzzle.all_cells & ~forced_empty
    state = _place_all(tables, 0, open_cells, forced_stars)
    engine = "search"
    found: tuple[Cells, ...] = ()
    if state is not None:
        units = len(tables.units)
        try:
            search.run(*state, [-1] * units, [_NEVER] * units)
            found = tuple(search.solutions)
        except _OverBudget:
            engine = "sat"
            root = search.root
            if root is not None:
                found = tuple(sat_solutions(tables, *root, limit))
    exact = len(found) < limit
    return CountResult(len(found), exact, found, search.nodes, (time.perf_counter() - start) * 1000.0, engine)


class Solutions:
    """Every solution of a puzzle (honouring its givens plus the extra `stars` and `empty` cells), one at a time as
    they are found, in memory that does not grow with how many are taken: `solve --limit N` for any N.

    The first `SAT_HELD` come from the SAT solver, as `count_solutions` finds them (same order, so `--limit 2` and
    `--limit 1000000` start alike, and a hard board's first solutions come as fast as a count). The solver blocks
    each solution it found with a clause, so past `SAT_HELD` the pure search takes over (`_Search.stream`, which
    keeps one path of its tree), skipping the solutions the solver already gave. `nodes` counts the search's nodes.

    >>> from starbattle_core.formats import puzzle_from_json
    >>> loose = puzzle_from_json({"size": 5, "stars": 1, "regions": ["AAABC", "AAABC", "ADDBC", "AEDBC", "AEEBB"]})
    >>> len(list(Solutions(loose)))
    2
    """

    def __init__(self, puzzle: Puzzle, *, stars: Cells = 0, empty: Cells = 0) -> None:
        self.puzzle = puzzle
        self.stars = stars
        self.empty = empty
        self._search = _Search(puzzle.geometry, limit=1)

    @property
    def nodes(self) -> int:
        return self._search.nodes

    def __iter__(self) -> Iterator[Cells]:
        search = self._search
        tables = search.tables
        puzzle = self.puzzle
        open_cells = puzzle.all_cells & ~(puzzle.given_empty | self.empty)
        state = _place_all(tables, 0, open_cells, puzzle.given_stars | self.stars)
        if state is None:
            return
        units = len(tables.units)
        search.nodes += 1
        root = search.propagate(*state, [-1] * units, [_NEVER] * units)
        if root is None:
            return
        stars, open_cells = root[0], root[1]
        if stars.bit_count() == search.total:
            yield stars
            return
        held: set[Cells] = set()
        for solution in sat_solutions(tables, stars, open_cells, SAT_HELD):
            held.add(solution)
            yield solution
        if len(held) < SAT_HELD:
            return
        for solution in search.stream(stars, open_cells, [-1] * units, [_NEVER] * units):
            if solution not in held:
                yield solution


def clear_caches() -> None:
    """Forget the board geometries and the region placements shared by every count, so that the next count pays
    for building them, as a fresh process does (the benchmark times every count this way)."""
    board_geometry.cache_clear()
    _OPTIONS.clear()


class _OverBudget(Exception):
    """The search passed its node budget: the SAT solver takes over."""


def _place_all(tables: BoardGeometry, stars: Cells, open_cells: Cells, new: Cells) -> tuple[Cells, Cells] | None:
    """Put stars on every cell of `new`, or None when one of them is not open (touching, full unit, empty)."""
    quota = tables.stars
    closes = tables.closes
    cell_units = tables.cell_units
    while new:
        bit = new & -new
        new ^= bit
        if not open_cells & bit:
            return None
        cell = bit.bit_length() - 1
        stars |= bit
        open_cells &= ~closes[cell]
        for unit in cell_units[cell]:
            if (stars & unit).bit_count() == quota:
                open_cells &= ~unit
    return stars, open_cells


# Regions with at most this many open cells are reasoned about by enumerating their placements (rows and columns
# gain little from it: for them the 2x2 block cover is already exact). Measured on the archive's 14x14 boards.
_ENUMERATED_REGION = 12


def _unit_options(cells: Cells, need: int, tables: BoardGeometry) -> tuple[bool, Cells, Cells, Cells]:
    """The placements of `need` non-touching stars on `cells` (`way_families`, the grader's enumeration too):
    whether there is any, the cells used by some, the cells used by all, and the cells outside `cells` touched by
    every placement. Stops as soon as nothing more can be learnt (every cell used by some placement, none by all,
    no outside cell touched by all)."""
    closes = tables.closes
    anywhere = 0
    everywhere = cells
    attacked = -1
    for stem, lasts in way_families(cells, need, tables.neighbours):
        anywhere |= stem | lasts
        everywhere &= stem if lasts & (lasts - 1) else stem | lasts
        # What every placement of the family touches: what its shared stars close, and what every last one does.
        touched = -1
        rest = lasts
        while rest:
            low = rest & -rest
            touched &= closes[low.bit_length() - 1]
            rest ^= low
        rest = stem
        while rest:
            low = rest & -rest
            touched |= closes[low.bit_length() - 1]
            rest ^= low
        attacked &= touched
        if anywhere == cells and not everywhere and not attacked & ~cells:
            break
    if not anywhere:
        return False, 0, 0, 0
    return True, anywhere, everywhere, attacked & ~cells


_NEVER = 1 << 60  # the branching score of a unit with nothing left to place
# Per board size: a region's (open cells * 16 + need) -> what `_unit_options` says about them. It depends on the
# cells only, so every count shares it (the generator re-counts many variants of a board); emptied past a size.
_OPTIONS: dict[int, dict[int, tuple[bool, Cells, Cells, Cells]]] = {}
_OPTIONS_KEPT = 100_000  # entries a board size keeps before its table is emptied


def _branches(
    tables: BoardGeometry, stars: Cells, open_cells: Cells, choice: Cells, need: int
) -> Iterator[tuple[Cells, Cells]]:
    """A node's children, (stars, open cells) each: branch i puts the unit's first star on its i-th open cell
    (`choice`) and empties the cells before it, so the branches are disjoint and cover every solution."""
    closes = tables.closes
    cell_units = tables.cell_units
    quota = tables.stars
    for _ in range(choice.bit_count() - need + 1):
        bit = choice & -choice
        choice ^= bit
        cell = bit.bit_length() - 1
        child_stars = stars | bit
        child_open = open_cells & ~closes[cell]
        for unit in cell_units[cell]:
            if (child_stars & unit).bit_count() == quota:
                child_open &= ~unit
        yield child_stars, child_open
        open_cells &= ~bit


class _Search:
    def __init__(self, tables: BoardGeometry, limit: int, budget: int | None = None) -> None:
        self.tables = tables
        self.limit = limit
        self.budget = _NEVER if budget is None else budget
        self.solutions: list[Cells] = []
        self.nodes = 0
        # The state the root propagated to (None when the root is a dead end): what the SAT solver is given.
        self.root: tuple[Cells, Cells] | None = None
        self.total = tables.size * tables.stars
        self.options = _OPTIONS.setdefault(tables.size, {})
        if len(self.options) > _OPTIONS_KEPT:
            self.options.clear()
        # Residual states searched to the end, as (open cells, stars in each unit) -> the stars their solutions
        # added (none for a dead end); see `run`.
        self.known: dict[tuple[Cells, tuple[int, ...]], tuple[Cells, ...]] = {}

    def run(self, stars: Cells, open_cells: Cells, seen: list[Cells], scores: list[int]) -> None:
        """Depth-first search from a state; returns when the subtree is done or the limit is reached.

        `seen` and `scores` are the parent's per-unit memo (see `propagate`); this call may change them.
        """
        if self.nodes > self.budget:
            raise _OverBudget
        self.nodes += 1
        result = self.propagate(stars, open_cells, seen, scores)
        if result is None:
            return
        stars, open_cells, choice, need = result
        if self.root is None:
            self.root = (stars, open_cells)
        if stars.bit_count() == self.total:
            self.solutions.append(stars)
            return
        # What is left to solve depends only on the open cells and on how many stars each unit still needs (the
        # stars themselves matter only through the cells they closed). When another branch reaches a residual state
        # already searched to the end (e.g. after putting the same rows', columns' and regions' stars on other
        # cells), its completions are known: none for a dead end, else each one added to this branch's stars.
        residual = (open_cells, tuple([(stars & unit).bit_count() for unit in self.tables.units]))
        completions = self.known.get(residual)
        if completions is not None:
            for added in completions:
                self.solutions.append(stars | added)
                if len(self.solutions) >= self.limit:
                    return
            return
        found = len(self.solutions)
        for child_stars, child_open in _branches(self.tables, stars, open_cells, choice, need):
            self.run(child_stars, child_open, seen[:], scores[:])
            if len(self.solutions) >= self.limit:
                return
        self.known[residual] = tuple([solution & ~stars for solution in self.solutions[found:]])

    def stream(self, stars: Cells, open_cells: Cells, seen: list[Cells], scores: list[int]) -> Iterator[Cells]:
        """Every solution below a state, as found: the depth-first search of `run` without its memo of completions
        (which holds every solution it has seen), so what is kept is one path of the tree however many solutions
        come out."""
        self.nodes += 1
        result = self.propagate(stars, open_cells, seen, scores)
        if result is None:
            return
        stars, open_cells, choice, need = result
        if stars.bit_count() == self.total:
            yield stars
            return
        for child_stars, child_open in _branches(self.tables, stars, open_cells, choice, need):
            yield from self.stream(child_stars, child_open, seen[:], scores[:])

    def propagate(
        self, stars: Cells, open_cells: Cells, seen: list[Cells], scores: list[int]
    ) -> tuple[Cells, Cells, Cells, int] | None:
        """Apply the unit rules until they decide nothing, then the band rules, until neither does; None on a
        contradiction.

        Returns the new state and the unit to branch on (its open cells and remaining need). A unit is examined
        again only when its open cells differ from `seen` (what they were when it was last examined, in this
        node or its parent); `scores` keeps each unit's branching score: how many branches it would give, times 8,
        plus 8 minus its need (among units giving as many branches, the one placing more stars is tighter).
        """
        tables = self.tables
        while True:
            settled = self._unit_rules(stars, open_cells, seen, scores)
            if settled is None:
                return None
            stars, open_cells = settled
            found = _band_rules(tables, stars, open_cells)
            if found is None:
                return None
            empty, forced = found
            if not (empty & open_cells or forced):
                return stars, open_cells, *_branch_unit(tables, stars, open_cells, scores)
            placed = _place_all(tables, stars, open_cells & ~empty, forced)
            if placed is None:
                return None
            stars, open_cells = placed

    def _unit_rules(
        self, stars: Cells, open_cells: Cells, seen: list[Cells], scores: list[int]
    ) -> tuple[Cells, Cells] | None:
        """Pass over the units until a whole pass decides nothing: the settled (stars, open cells), or None on a
        contradiction. A unit whose open cells changed is scored for branching (`scores`: never for a unit that has
        no choice or places stars) and gets the one rule its need and open cells call for: `_filled` (no more open
        cells than its need), `_one_star` (one star among at most 4 open cells), `_region_ways` (a small region),
        `_blocks` (any other unit whose cells 2x2 blocks could cover as few times as its need: a block holds at most
        4 of them). What the rule decides is applied at once, so the next unit sees it."""
        tables = self.tables
        quota = tables.stars
        first_region = 2 * tables.size
        filled, one_star, region_ways, blocks = _filled, _one_star, self._region_ways, _blocks  # local: a hot loop
        changed = True
        while changed:
            changed = False
            for index, unit in enumerate(tables.units):
                cells = open_cells & unit
                if cells == seen[index]:
                    continue
                seen[index] = cells
                need = quota - (stars & unit).bit_count()
                count = cells.bit_count()
                if count <= need:
                    scores[index] = _NEVER
                    decided = filled(cells, count, need)
                else:
                    scores[index] = (count - need + 1) * 8 + 8 - need
                    if need == 1:
                        if count > 4:
                            continue
                        decided = one_star(tables, cells, open_cells)
                    elif index >= first_region and count <= _ENUMERATED_REGION:
                        decided = region_ways(cells, need, open_cells)
                    elif count > 4 * need:
                        continue
                    else:
                        decided = blocks(tables, cells, need, open_cells)
                if decided is None:
                    return None
                empties, forced = decided
                if empties:
                    open_cells &= ~empties
                    changed = True
                if forced:
                    scores[index] = _NEVER
                    placed = _place_all(tables, stars, open_cells, forced)
                    if placed is None:
                        return None
                    stars, open_cells = placed
                    changed = True
        return stars, open_cells

    def _region_ways(self, cells: Cells, need: int, open_cells: Cells) -> _Decided | None:
        """A small region (at most `_ENUMERATED_REGION` open cells) needing two or more stars, reasoned about by
        every way to place them (`_unit_options`, exact where 2x2 blocks guess): no way is a contradiction; cells in
        no way are empty, and so are the cells outside it touched by every way; cells in every way are stars."""
        key = cells * 16 + need
        options = self.options.get(key)
        if options is None:
            options = self.options[key] = _unit_options(cells, need, self.tables)
        possible, anywhere, everywhere, attacked = options
        if not possible:
            return None
        return (cells & ~anywhere) | (attacked & open_cells), everywhere


# What a unit rule decides: (cells to empty, cells to star); None is a contradiction.
_Decided = tuple[Cells, Cells]
_NOTHING: _Decided = (0, 0)


def _filled(cells: Cells, count: int, need: int) -> _Decided | None:
    """A unit with no more open cells than the stars it needs: fewer is a contradiction; as many are all stars."""
    return None if count < need else (0, cells)


def _one_star(tables: BoardGeometry, cells: Cells, open_cells: Cells) -> _Decided:
    """A unit needing one star among a few open cells (at most 4: for more, common neighbours are rare and costly
    to find): the cells touching all of them are empty."""
    return touching_all(cells, open_cells & ~cells, tables.closes), 0


def _blocks(tables: BoardGeometry, cells: Cells, need: int, open_cells: Cells) -> _Decided | None:
    """A unit needing two or more stars, its open cells covered greedily by 2x2 blocks (each holds at most one
    star): fewer blocks than its need is a contradiction; exactly as many means every block holds one star, so a
    block with one open cell is a star and the cells touching a whole block are empty."""
    block = tables.block
    rest = cells
    covers = 0
    while rest and covers <= need:
        low = rest & -rest
        rest &= ~block[low.bit_length() - 1]
        covers += 1
    if covers < need:
        return None
    if covers > need:
        return _NOTHING
    # As many blocks as stars: cover again, now reading each block.
    closes = tables.closes
    empties = forced = 0
    rest = cells
    while rest:
        low = rest & -rest
        piece = rest & block[low.bit_length() - 1]
        rest &= ~piece
        if piece & (piece - 1):
            empties |= touching_all(piece, open_cells & ~piece & ~empties, closes)
        else:
            forced |= piece
    return empties, forced


def _band_rules(tables: BoardGeometry, stars: Cells, open_cells: Cells) -> tuple[Cells, Cells] | None:
    """Pigeonhole on bands of rows (`pigeonhole.band_deductions`) and, only when they decide nothing, on bands of
    columns (the same code on the transposed board; the unit rules are cheaper to rerun): (cells to empty, cells
    to star), or None on a contradiction."""
    found = band_deductions(tables, open_cells, stars, tables.region_masks, tables.strips)
    if found is None or found[0] & open_cells or found[1]:
        return found
    transpose = tables.grid.transpose
    found = band_deductions(
        tables, transpose(open_cells), transpose(stars), tables.regions_transposed, tables.strips_transposed
    )
    return None if found is None else (transpose(found[0]), transpose(found[1]))


def _branch_unit(tables: BoardGeometry, stars: Cells, open_cells: Cells, scores: list[int]) -> tuple[Cells, int]:
    """The unit to branch on when no rule decides anything (its open cells and need): fewest branches, then the
    larger need, then regions (they come last in `units`): measured best."""
    units = tables.units
    best = min(range(len(units) - 1, -1, -1), key=scores.__getitem__)
    unit = units[best]
    return open_cells & unit, tables.stars - (stars & unit).bit_count()
