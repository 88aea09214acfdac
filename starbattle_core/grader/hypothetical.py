"""Hypotheticals: assume a cell is a star (or empty), let the cheap rules run, and if the board collapses into a
contradiction the cell is the opposite. Not guessing: the assumption is refuted, never kept.

Variants rise in cost with what the propagation may use (`level`), how long the chain may run (`budget` rounds,
0 = until it stops) and `depth`: at depth 2 the propagation itself refutes single assumptions at `level - 1`
near the chain before it gives up, a chain of chains; at depth 3 it refutes them at `level` anywhere on the
board for as long as that keeps finding some, starting from every open cell. Depth 3 is the last resort on
boards nothing cheaper moves (some 14x14 3-star hard ones): slow, but still a finite argument, not a guess.

`unit_chains` is the forcing-chain cousin: follow each way to place a unit's stars; what every surviving way
agrees on is proved, contradiction or not. Its widest variant follows each way with whole-board chains of chains.
"""

from __future__ import annotations

from ..puzzle import Cells, is_solution, iter_cells
from ..sat_counter import sat_solutions
from .geometry import Geometry, State
from .propagation import CASES, Outcome, propagate
from .step import Deduction
from .ways import state_placements

_INNER_PASSES = 2  # how many sweeps of nested refutations a depth-2 chain may make before it gives up
_DEEP_CANDIDATES = 24  # a depth-2 chain of chains starts only from this many of the tightest cells
_WIDE_PASSES = 12  # sweeps a whole-board chain of chains may make (each must refute something to go on)


def assumption(
    geometry: Geometry, state: State, *, assume: str, level: int, budget: int, depth: int
) -> Deduction | None:
    """The first open cell (tightest units first; at depth 3, widest collapse first) for which assuming `assume`
    ("star" or "empty") leads to a contradiction within `budget` rounds of `level` propagation, at nesting `depth`
    (1, 2 or 3)."""
    candidates = _candidates(geometry, state)
    if depth == 2:
        candidates = candidates[:_DEEP_CANDIDATES]
    # The solution is looked for by the dear scans only (a cheap scan costs less than the search on small boards).
    candidates = _refutable(geometry, state, candidates, assume, look=level >= CASES or depth > 1)
    if depth == 3:
        candidates = _widest_collapse_first(geometry, state, candidates, assume, level)
    for cell in candidates:
        outcome = _refute(geometry, state, cell, assume, level, depth)
        if outcome.contradiction and (not budget or outcome.rounds <= budget):
            name = geometry.cell_name(cell)
            bit = 1 << cell
            star = geometry.words.star
            if assume == "star":
                sentence = f"if {name} were a {star}, {outcome.contradiction}; so {name} is empty"
                return Deduction(0, bit, (), sentence, ((bit, 0),))
            sentence = f"if {name} were empty, {outcome.contradiction}; so {name} is a {star}"
            return Deduction(bit, 0, (), sentence, ((0, bit),))
    return None


def _refutable(geometry: Geometry, state: State, candidates: list[int], assume: str, look: bool) -> list[int]:
    """The candidates an assumption could refute, in their order: not those that a solution of the board agrees
    with when that solution keeps every mark of the state. Propagation is sound, so an assumption some solution
    makes never ends in a contradiction: dropping those cells finds the same first refuted cell without running
    their chains (on a board with one solution, every cell a star assumption at a cell of that solution's stars,
    and an empty assumption at every other cell). The solution is found once per solve, by the SAT solver the
    counter uses, and checked against the rules; nothing is dropped on a state it does not keep (inside a chain),
    nor before it is looked for (`look`)."""
    recall = geometry.recall
    if look and not recall.witness_known:
        recall.witness_known = True
        start = geometry.initial_state()
        found = next(sat_solutions(geometry.board, start.stars, geometry.open_cells(start), 1), None)
        recall.witness = found if found is not None and is_solution(geometry.puzzle, found) else None
    witness = recall.witness
    if witness is None or state.stars & ~witness or state.empty & witness:
        return candidates
    agreed = witness if assume == "star" else ~witness
    return [cell for cell in candidates if not agreed >> cell & 1]


def _candidates(geometry: Geometry, state: State) -> list[int]:
    """Open cells, those in the units with the fewest open cells first (where a person would try first);
    memoised for the state (every hypothetical variant scans them)."""
    key = (state.stars, state.empty)
    found = geometry.recall.candidates.get(key)
    if found is None:
        found = geometry.recall.candidates[key] = _tightest_first(geometry, state)
    return found


def _widest_collapse_first(
    geometry: Geometry, state: State, candidates: list[int], assume: str, level: int
) -> list[int]:
    """The candidates ordered by how much their plain chain decides, most first (ties: tightest first): the
    assumption that collapses the most is the likeliest to end in a contradiction, and the first one found is
    the step. The plain chains of this state are already known (the cheaper hypotheticals ran them)."""

    def decided(cell: int) -> int:
        outcome = _refute(geometry, state, cell, assume, level, 1)
        return (outcome.stars & ~state.stars).bit_count() * geometry.size + (outcome.empty & ~state.empty).bit_count()

    return sorted(candidates, key=decided, reverse=True)


def _tightest_first(geometry: Geometry, state: State) -> list[int]:
    open_cells = geometry.open_cells(state)
    tightness: dict[int, int] = {}
    for unit in geometry.units:
        own = unit.mask & open_cells
        count = own.bit_count()
        for cell in iter_cells(own):
            if count < tightness.get(cell, 1 << 30):
                tightness[cell] = count
    return sorted(tightness, key=lambda cell: (tightness[cell], cell))


def _refute(geometry: Geometry, state: State, cell: int, assume: str, level: int, depth: int) -> Outcome:
    """The outcome of assuming `assume` at `cell`, memoised on the geometry (same state, same answer)."""
    key = (state.stars, state.empty, cell, assume, level, depth)
    refutations = geometry.recall.refutations
    outcome = refutations.get(key)
    if outcome is None:
        if depth > 1:
            # A chain of chains starts with the shallower chain (usually known from a cheaper variant of this state).
            outcome = _refute(geometry, state, cell, assume, level, depth - 1)
            if outcome.contradiction is None:
                wide = depth > 2
                outcome = _nested(geometry, state, outcome, level, wide)
        else:
            bit = 1 << cell
            stars, empty = (state.stars | bit, state.empty) if assume == "star" else (state.stars, state.empty | bit)
            outcome = propagate(geometry, stars, empty, level, changed=bit)
        refutations[key] = outcome
    return outcome


def _nested(geometry: Geometry, state: State, outcome: Outcome, level: int, wide: bool = False) -> Outcome:
    """Keep refuting single star assumptions at `level - 1` inside an assumption, until a contradiction appears
    or nothing more is refuted. The inner assumptions stay near the chain: open cells of the units that the
    assumption changed (a person follows the chain, not the whole board); `wide` looks at every open cell, and
    refutes with `level` itself."""
    inner = level if wide else max(1, level - 1)
    stars, empty, rounds = outcome.stars, outcome.empty, outcome.rounds
    changed = (stars & ~state.stars) | (empty & ~state.empty)
    for _ in range(_WIDE_PASSES if wide else _INNER_PASSES):
        refuted: Cells = 0
        if wide:
            near = geometry.all_cells
        else:
            near = 0
            for mask in geometry.unit_masks:
                if mask & changed:
                    near |= mask
        open_cells = near & geometry.all_cells & ~stars & ~empty
        for cell in iter_cells(open_cells):
            trial = propagate(geometry, stars | (1 << cell), empty, inner, changed=1 << cell)
            if trial.contradiction:
                refuted |= 1 << cell
        if not refuted:
            break
        deeper = propagate(geometry, stars, empty | refuted, level, changed=refuted)
        rounds += deeper.rounds
        if deeper.contradiction:
            return Outcome(deeper.stars, deeper.empty, rounds, deeper.contradiction)
        changed = (deeper.stars & ~stars) | (deeper.empty & ~empty)
        stars, empty = deeper.stars, deeper.empty
    return Outcome(stars, empty, rounds, None)


def unit_chains(
    geometry: Geometry, state: State, *, kind: str, limit: int, level: int, wide: bool = False
) -> Deduction | None:
    """Follow every way to place a unit's remaining stars (at most `limit` ways) with `level` propagation: ways
    that collapse are dropped, and whatever all the others agree on is proved (a forcing chain from each case).
    With `wide`, each way is followed further by whole-board chains of chains (see `_nested`): the last resort
    on a board that no single assumption moves."""
    units = geometry.regions if kind == "regions" else geometry.lines
    open_cells = geometry.open_cells(state)
    for unit in units:
        need = geometry.need(unit, state)
        if need < 1 or (unit.mask & open_cells).bit_count() <= need:
            continue
        ways = state_placements(geometry, state, unit.mask, need, limit)
        if not ways:
            continue
        stars, empty = geometry.all_cells, geometry.all_cells
        alive = 0
        for way in ways:
            outcome = propagate(geometry, state.stars | way, state.empty, level, changed=way)
            if wide and outcome.contradiction is None:
                outcome = _nested(geometry, state, outcome, level, wide=True)
            if outcome.contradiction:
                continue
            alive += 1
            stars &= outcome.stars
            empty &= outcome.empty
        if not alive:
            continue
        stars &= open_cells
        empty &= open_cells
        if stars | empty:
            parts = []
            if stars:
                parts.append(f"{geometry.names(stars)} {geometry.words.are_stars(stars)}")
            if empty:
                parts.append(f"{geometry.names(empty)} {'is' if empty.bit_count() == 1 else 'are'} empty")
            dropped = len(ways) - alive
            sentence = (
                f"{unit.label} can take its {need} {geometry.words.stars if need > 1 else geometry.words.star} "
                f"{len(ways)} ways"
                + (f" ({dropped} of them collapse)" if dropped else "")
                + "; following each one to its end, they all agree: "
                + "; ".join(parts)
            )
            trials = tuple((way, 0) for way in ways)
            return Deduction(stars, empty, (unit.label,), sentence, trials)
    return None
