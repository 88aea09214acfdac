"""The chain of a hypothetical step, told as a player would follow it.

A hypothetical technique finds its answer by fast propagation that builds no sentences (propagation.py). Once the
solver has chosen such a step, the chain is rebuilt for people: from each assumption the step made (one cell for
an assumption, one way to fill the unit for unit cases), the solver's own plain techniques are applied, cheapest
first, each application one link with its code and sentence, until the rules break (a contradiction) or, for a
case that survives, until the cells the step proves are all decided. Only techniques cheaper than the step itself
are used, plain ones first; the cheaper hypotheticals join only when plain reasoning alone does not finish the
chain (a chain of chains).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..puzzle import Cells, iter_cells
from .geometry import Geometry, State
from .room import capacity, region_fits
from .step import Deduction, Link
from .table import Technique

_MOST_LINKS = 80  # a chain longer than this is cut (no board measured needs half of it)
_REACH_COSTS = (3, 10, 28)  # see _reaches (Queens tiers weigh 1, 3, 6 and 12: the first two reaches serve them)


@dataclass(frozen=True)
class _Ending:
    links: tuple[Link, ...]
    finished: bool
    problem: str | None = None  # the broken rule, when the chain ends in a contradiction


def broken_rule(geometry: Geometry, state: State) -> str | None:
    """Why the marks contradict the rules (touching stars, a unit over its quota or out of room, a cell both
    star and empty), or None."""
    words = geometry.words
    if state.stars & state.empty:
        return f"{geometry.names(state.stars & state.empty)} marked both {words.star} and empty"
    open_cells = geometry.open_cells(state)
    for unit in geometry.units:
        need = geometry.need(unit, state)
        if need < 0:
            return f"{unit.label} has more than {unit.quota} {words.stars}"
        if (unit.mask & open_cells).bit_count() < need:
            return f"{unit.label} has no room left for its {words.stars}"
    for cell in iter_cells(state.stars):
        if geometry.neighbours[cell] & state.stars:
            return f"{words.star} {geometry.cell_name(cell)} touches another {words.star}"
    return None


def _no_room(geometry: Geometry, state: State) -> str | None:
    """A unit or band whose open cells cannot hold its missing stars without two touching, or None."""
    open_cells = geometry.open_cells(state)
    for unit in geometry.units + geometry.bands:
        need = geometry.need(unit, state)
        if need <= 0:
            continue
        if unit.kind == "region":
            fits = region_fits(geometry, unit.mask & open_cells, need)
        else:
            fits = capacity(geometry, unit, open_cells) >= need
        if not fits:
            verb = "have" if unit.kind in ("rows", "columns") else "has"
            return f"{unit.label} {verb} no room for {need} more non-touching {geometry.words.stars}"
    return None


def build_chain(
    geometry: Geometry, state: State, deduction: Deduction, cost: int, table: list[Technique]
) -> tuple[tuple[Link, ...], str]:
    """The links of a hypothetical step found on `state` (see the module docstring; `table` is the solver's
    table, `cost` the step's own) and the step's sentence told after its chain: a single assumption names the
    rule its chain breaks (the fast propagation may have met another first)."""
    proved = deduction.stars | deduction.empties
    case = len(deduction.trials) > 1
    links: list[Link] = []
    for number, (stars, empty) in enumerate(deduction.trials, 1):
        start = State(state.stars | stars, state.empty | empty)
        links.append(_assume(geometry, stars, empty, number if case else 0))
        for reach in _reaches(table, cost):
            ending = _follow(geometry, start, reach, proved if case else 0, deduction)
            if ending.finished:
                break
        links += ending.links
    sentence = deduction.sentence
    if not case and ending.problem is not None:
        stars, empty = deduction.trials[0]
        cell = geometry.names(stars | empty)
        star = geometry.words.star
        sentence = (
            f"if {cell} were a {star}, {ending.problem} (the chain below); so {cell} is empty"
            if stars
            else f"if {cell} were empty, {ending.problem} (the chain below); so {cell} is a {star}"
        )
    return tuple(links), sentence


def _reaches(table: list[Technique], cost: int) -> list[list[Technique]]:
    """The technique sets a chain is followed with, narrowest first: the plain techniques up to each of a few
    costs (the trivial marks, then attacks and one-unit confinement, then the 2x2 bands), all plain ones
    cheaper than the step, and then the cheaper hypotheticals too. The first that ends the chain tells it:
    a chain told with the simplest reasoning that carries it."""
    plain = [t for t in table if t.cost < cost and t.family != "hypothetical"]
    reaches = [[t for t in plain if t.cost <= limit] for limit in _REACH_COSTS]
    reaches += [plain, [t for t in table if t.cost < cost]]
    unique: list[list[Technique]] = []
    for reach in reaches:
        if reach and (not unique or len(reach) > len(unique[-1])):
            unique.append(reach)
    return unique


def _assume(geometry: Geometry, stars: Cells, empty: Cells, case: int) -> Link:
    if case:
        return Link("CASE", stars, empty, f"case {case}: {geometry.names(stars)} {geometry.words.are_stars(stars)}")
    if stars:
        return Link("ASSUME", stars, 0, f"suppose {geometry.names(stars)} is a {geometry.words.star}")
    return Link("ASSUME", 0, empty, f"suppose {geometry.names(empty)} is empty")


def _follow(geometry: Geometry, state: State, table: list[Technique], proved: Cells, deduction: Deduction) -> _Ending:
    """Apply `table` to `state` until a rule breaks (the end of a refuted assumption) or, with `proved`, until
    those cells are decided as `deduction` says (the end of a surviving case)."""
    links: list[Link] = []
    while len(links) < _MOST_LINKS:
        problem = broken_rule(geometry, state) or _no_room(geometry, state)
        if problem is not None:
            links.append(Link("CONTRADICTION", 0, 0, f"so {problem}: the assumption is impossible"))
            return _Ending(tuple(links), True, problem)
        # A case ends when it decides the proved cells as the step does; one that decides them otherwise must
        # collapse, and is followed on to its contradiction.
        if proved and not deduction.stars & ~state.stars and not deduction.empties & ~state.empty:
            links.append(Link("END", 0, 0, f"this case ends with {geometry.names(proved)} decided as the step says"))
            return _Ending(tuple(links), True)
        found = None
        open_cells = geometry.open_cells(state)
        for technique in table:
            deduced = technique.apply(geometry, state)
            if deduced is not None and (deduced.stars | deduced.empties) & open_cells:
                found = technique, deduced
                break
        if found is None:
            break
        technique, deduced = found
        stars, empties = deduced.stars & open_cells, deduced.empties & open_cells
        links.append(Link(technique.code, stars, empties, deduced.sentence))
        state = State(state.stars | stars, state.empty | empties)
    return _Ending(tuple(links), False)
