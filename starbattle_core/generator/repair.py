"""Uniqueness repair (stage 4): break a second solution by moving one of its impostor cells to another region.

An impostor is a cell starred in the alternate solution and empty in the intended one. Moving it from region a to
a region b next to it leaves the intended solution untouched (the cell holds no intended star, so every region
keeps its K intended stars) and breaks the alternate (region a now holds fewer than K of its stars, region b more).
Region b gains a cell beside it, so it stays connected. When region a would fall apart without the cell (the cell
is a bottleneck), the pieces cut off from a's intended stars travel with it: they hold no intended star, so the
argument is unchanged, and they hang on the cell, so b stays connected. An impostor deep inside its region (no
other region beside it) travels with a short path of its region's cells to the nearest border, on the same terms.
Count again, and repeat while another alternate turns up, up to the configured rounds.

A Queens mirror map around queens that are their own image (`paired_symmetry`; symmetry.py draws such queens for
mirror boards) has alternates in image pairs: each move takes its mirror image along (`image_move`), which breaks the
images of the alternates it breaks, and the map stays a mirror map (moves that have no image are made only when no
other will do). An exact left-right or top-bottom mirror map allows no such queens and is never unique: `whittle`
keeps whichever of its solutions survives, moving cells in image pairs while that helps, then one at a time.

Why the extras: moving single impostor cells only, 10x10 2-star candidates ended unique 8% of the time (most were
left with every impostor pinned); with carried pieces and paths, 27%; listing 8 solutions per count and picking
the move that breaks the most of them, 70% (bench_generator.py --unique).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ..counter import CountResult, count_solutions
from ..puzzle import Cells, Puzzle, iter_cells
from .designs import MIRROR_SHARE, SYMMETRIES, figure_share, mirror_cell, notches, spared_cells, symmetry_share
from .growth import symmetrize
from .shape import cell_list, grid, region_masks

Counter = Callable[[Puzzle, int], CountResult]
IMPOSTOR_REACH = 4  # the longest path an impostor deep inside its region travels with


@dataclass(frozen=True)
class Move:
    """Cell `cell`, with the cells `carried` along (the pieces of its region that hang on it), leaves region
    `source` for region `target`."""

    cell: int
    source: int
    target: int
    carried: Cells = 0

    @property
    def cells(self) -> Cells:
        return (1 << self.cell) | self.carried


def impostors(intended: Cells, alternate: Cells) -> Cells:
    """Cells starred in the alternate solution and empty in the intended one."""
    return alternate & ~intended


def boundary_moves(regions: tuple[int, ...], size: int, movable: Cells, anchors: Cells = 0) -> list[Move]:
    """Every move of one cell of `movable` (never one of `anchors`, the intended stars) into an orthogonally
    adjacent other region that leaves its own region connected: the nudges of hill-climb tuning."""
    g = grid(size)
    masks = region_masks(regions, size)
    moves: list[Move] = []
    for cell in cell_list(movable & ~anchors):
        source = regions[cell]
        if not g.connected(masks[source] & ~(1 << cell)):
            continue
        moves.extend(
            Move(cell, source, target)
            for target in sorted({regions[side] for side in cell_list(g.sides[cell])} - {source})
        )
    return moves


def apply_move(regions: tuple[int, ...], move: Move) -> tuple[int, ...]:
    changed = list(regions)
    for cell in cell_list(move.cells):
        changed[cell] = move.target
    return tuple(changed)


def impostor_moves(
    regions: tuple[int, ...], size: int, intended: Cells, alternate: Cells, reach: int = IMPOSTOR_REACH
) -> list[Move]:
    """Every move that carries an impostor into another region, keeps the intended stars where they are and
    leaves both regions connected.

    An impostor inside its region (no other region beside it) travels with a short path of its region's cells,
    at most `reach` long and free of intended stars, to a cell that has another region beside it.
    """
    masks = region_masks(regions, size)
    moves: dict[tuple[Cells, int], Move] = {}
    for cell in cell_list(impostors(intended, alternate)):
        for move in _cell_moves(regions, size, masks, intended, cell, reach):
            moves.setdefault((move.cells, move.target), move)
    return list(moves.values())


def _cell_moves(
    regions: tuple[int, ...], size: int, masks: list[Cells], intended: Cells, cell: int, reach: int
) -> list[Move]:
    """The moves of `impostor_moves` that carry this one cell, in the order it finds them. They depend on the
    cell alone, not on the alternate solution that starred it, so a repair round finds them once per cell."""
    g = grid(size)
    source = regions[cell]
    home = masks[source]
    anchors = home & intended
    parent = {cell: -1}
    frontier = [cell]
    moves: list[Move] = []
    for _ in range(reach):
        following = []
        for x in frontier:
            path = 0
            walk = x
            while walk >= 0:
                path |= 1 << walk
                walk = parent[walk]
            rest = home & ~path
            main = g.reach(anchors & -anchors, rest) if anchors else rest
            if anchors & ~main or not main or not g.connected(main):
                continue
            moves.extend(
                Move(cell, source, target, (path | (rest & ~main)) & ~(1 << cell))
                for target in sorted({regions[side] for side in cell_list(g.sides[x])} - {source})
            )
            for side in cell_list(g.sides[x] & home & ~intended):
                if side not in parent:
                    parent[side] = x
                    following.append(side)
        frontier = following
    return moves


def _known_cell_moves(
    regions: tuple[int, ...],
    size: int,
    masks: list[Cells],
    intended: Cells,
    cell: int,
    known: dict[tuple[int, ...], list[Move]] | None,
) -> list[Move]:
    """_cell_moves, looked up in `known` (the moves found in a repair's earlier rounds) when the cell's region and
    the regions around it are as they were then: they are all the moves depend on, and a round changes two regions
    (four with a mirror image's move)."""
    if known is None:
        return _cell_moves(regions, size, masks, intended, cell, IMPOSTOR_REACH)
    source = regions[cell]
    home = masks[source]
    around = grid(size).grow(home)
    key = (cell, source, home, intended, *(regions[side] for side in iter_cells(around)))
    moves = known.get(key)
    if moves is None:
        moves = known[key] = _cell_moves(regions, size, masks, intended, cell, IMPOSTOR_REACH)
    return moves


def choose_repair_move(
    regions: tuple[int, ...],
    size: int,
    intended: Cells,
    alternates: tuple[Cells, ...],
    rng: random.Random,
    least: int = 1,
    mirror: str | None = None,
    roomy: int = 0,
    partners: list[int] | None = None,
    spare: frozenset[int] = frozenset(),
    known: dict[tuple[int, ...], list[Move]] | None = None,
) -> Move | None:
    """A move of an impostor that breaks as many of `alternates` as one move can (a move breaks every alternate
    with a star among the cells it moves) and keeps `intended` a solution; None when no impostor can move.
    `roomy`: only moves that leave their source region `roomy` cells or more are chosen, while there are any.
    `mirror`: only moves that have an image (image_move) are chosen, while there are any (`partners`: the map's
    mirror_partners, when the caller has them). `spare`: regions no move takes a cell from or gives one to, while
    any other move will do. `known`: a repair's memory of the moves its earlier rounds found (_known_cell_moves),
    filled as it goes.

    Among the best, moves of fewer cells are preferred, smaller target regions to larger ones, and single-cell
    regions (a Queens board's planted gift) are left alone while anything else will do. A move that would leave
    its source region under `least` cells (a give-away, looks.smallest_allowed) is never made.
    """
    masks = region_masks(regions, size)
    found: dict[int, list[Move]] = {}  # an impostor shared by several alternates is looked at once
    moves: dict[tuple[Cells, int], Move] = {}
    for alternate in alternates:
        for cell in cell_list(impostors(intended, alternate)):
            if cell not in found:
                found[cell] = _known_cell_moves(regions, size, masks, intended, cell, known)
            for move in found[cell]:
                moves.setdefault((move.cells, move.target), move)
    sizes = [0] * size
    for region in regions:
        sizes[region] += 1
    moves = {key: move for key, move in moves.items() if sizes[move.source] - key[0].bit_count() >= least}
    if roomy > least:
        spared = {key: move for key, move in moves.items() if sizes[move.source] - key[0].bit_count() >= roomy}
        moves = spared or moves
    if mirror:
        partners = partners or mirror_partners(regions, size, mirror)
        paired = {key: move for key, move in moves.items() if image_move(regions, size, move, mirror, partners, least)}
        moves = paired or moves
    if spare:
        kept = {key: move for key, move in moves.items() if move.source not in spare and move.target not in spare}
        moves = kept or moves
    if not moves:
        return None
    broken = {key: sum(1 for alternate in alternates if key[0] & alternate) for key in moves}
    most = max(broken.values())
    best = [move for key, move in moves.items() if broken[key] == most]
    weights = [
        (0.05 if sizes[m.target] == 1 else 1.0) / sizes[m.target] / (1 + 4 * m.carried.bit_count()) for m in best
    ]
    return rng.choices(best, weights=weights)[0]


def paired_symmetry(puzzle: Puzzle, intended: Cells) -> str | None:
    """The symmetry a Queens map follows (designs.MIRROR_SHARE of its borders or more, the best one) when its intended
    queens are their own image under it, or None: then every alternate's image is an alternate too, and repair can
    move cells in image pairs (symmetry.py draws such queens for mirror boards)."""
    size = puzzle.size
    shares = {
        name: symmetry_share(puzzle.regions, size, name)
        for name in SYMMETRIES
        if sum(1 << mirror_cell(cell, size, name) for cell in cell_list(intended)) == intended
    }
    best = max(shares, key=shares.__getitem__, default=None)
    return best if best is not None and shares[best] >= MIRROR_SHARE else None


def mirror_partners(regions: tuple[int, ...], size: int, symmetry: str) -> list[int]:
    """Each region's image under `symmetry`: the region holding the most of its cells' images (ties to the lowest
    region, so a seed keeps its board)."""
    count = max(regions) + 1
    tallies = [[0] * count for _ in range(count)]
    for cell, region in enumerate(regions):
        tallies[region][regions[mirror_cell(cell, size, symmetry)]] += 1
    return [max(range(count), key=row.__getitem__) for row in tallies]


def image_move(
    before: tuple[int, ...], size: int, move: Move, symmetry: str, partners: list[int], least: int
) -> Move | None:
    """The mirror image of `move` (made on the map `before`) under `symmetry`, to make right after it: the images of
    its cells, all in one region and clear of the move's own cells, pass to the image of the move's target
    (`partners`: mirror_partners of `before`). None when that is no move: a region would fall apart or drop under
    `least` cells. The queens are their own image (paired_symmetry), so the image cells hold none."""
    g = grid(size)
    image = [mirror_cell(cell, size, symmetry) for cell in cell_list(move.cells)]
    taken = sum(1 << cell for cell in image)
    source = before[image[0]]
    if taken & move.cells or any(before[cell] != source for cell in image):
        return None
    target = partners[move.target]
    masks = region_masks(apply_move(before, move), size)
    left = masks[source] & ~taken
    if target == source or left.bit_count() < least or not g.connected(left) or not g.connected(masks[target] | taken):
        return None
    first = mirror_cell(move.cell, size, symmetry)
    return Move(first, source, target, taken & ~(1 << first))


@dataclass(frozen=True)
class Repair:
    """How repair ended: `status` is "unique", "ambiguous" (rounds spent or no impostor can move) or
    "no_solution" (the counter found none, or not the intended one); `rounds` moves were made."""

    puzzle: Puzzle
    status: str
    rounds: int
    moves: tuple[Move, ...]


def repair(
    puzzle: Puzzle,
    intended: Cells,
    rounds: int,
    rng: random.Random,
    sample: int = 2,
    count: Counter = count_solutions,
    least: int = 1,
    undo: bool = False,
    roomy: int = 0,
) -> Repair:
    """Count to `sample` (2: the second solution is enough); while other solutions exist, move an impostor (at
    most `rounds` moves). A larger sample shows more alternates per count, so one move can break several.
    `undo`: once unique, give back the cells the board does not need moved (`undo_moves`). `roomy`: take cells
    from regions that keep that many while any move does (choose_repair_move): every move shrinks a region, and
    taken from any region the small ones ended at `least`. A Queens map's regions whose shape another repeats (a
    setter's idea drawn several times) and its largest symmetric figure (designs.spared_cells) are spared while any
    other move will do."""
    moves: list[Move] = []
    first = puzzle.regions
    mirror = paired_symmetry(puzzle, intended) if puzzle.game == "queens" else None
    masks = list(puzzle.region_masks)
    spared = spared_cells(masks, puzzle.size) if puzzle.game == "queens" else 0
    spare = frozenset(index for index, mask in enumerate(masks) if mask & spared)
    known: dict[tuple[int, ...], list[Move]] = {}
    while True:
        result = count(puzzle, max(2, sample))
        if intended not in result.solutions and (result.count < 2 or result.exact):
            return Repair(puzzle, "no_solution", len(moves), tuple(moves))
        if result.count == 1 and result.exact:
            if moves and undo:
                puzzle = undo_moves(puzzle, first, intended, rng, count, least)
                if puzzle.game == "queens":
                    puzzle = tidy_queens(puzzle, intended, rng, count, least)
            return Repair(puzzle, "unique", len(moves), tuple(moves))
        alternates = tuple(s for s in result.solutions if s != intended)
        if not alternates or len(moves) >= rounds:
            return Repair(puzzle, "ambiguous", len(moves), tuple(moves))
        partners = mirror_partners(puzzle.regions, puzzle.size, mirror) if mirror else None
        move = choose_repair_move(
            puzzle.regions, puzzle.size, intended, alternates, rng, least, mirror, roomy, partners, spare, known
        )
        if move is None:
            return Repair(puzzle, "ambiguous", len(moves), tuple(moves))
        moves.append(move)
        regions = apply_move(puzzle.regions, move)
        image = image_move(puzzle.regions, puzzle.size, move, mirror, partners, least) if mirror and partners else None
        if image is not None:  # the move breaks some alternates, its image their images: the map stays a mirror map
            regions = apply_move(regions, image)
        puzzle = replace(puzzle, regions=regions, solution=intended)


def still_unique(puzzle: Puzzle, intended: Cells, count: Counter = count_solutions) -> Callable[[Sequence[int]], bool]:
    """Whether a region map for `puzzle`'s size, stars and game has exactly one solution, the intended one: the test
    every move after repair must pass to be kept."""

    def unique(regions: Sequence[int]) -> bool:
        board = replace(puzzle, regions=tuple(regions), solution=intended)
        result = count(board, 2)
        return result.count == 1 and result.exact and result.solutions[0] == intended

    return unique


def undo_moves(
    puzzle: Puzzle, first: tuple[int, ...], intended: Cells, rng: random.Random, count: Counter, least: int
) -> Puzzle:
    """The unique board with every moved cell it can spare given back to the region it was grown in (in random
    order, two passes: a cell may only border its first region once another is back). A cell goes back when both
    regions stay connected, the one it leaves keeps `least` cells, and the board stays unique with the intended
    solution. Repair moves cells for the alternates of the moment, and later moves often make earlier ones
    needless: given back, the board keeps more of the drawing it was grown as (LinkedIn-like symmetry, rings)."""
    size = puzzle.size
    g = grid(size)
    unique = still_unique(puzzle, intended, count)
    for _ in range(2):
        moved = [cell for cell in range(size * size) if puzzle.regions[cell] != first[cell]]
        rng.shuffle(moved)
        for cell in moved:
            masks = region_masks(puzzle.regions, len(puzzle.region_masks))
            home, now = first[cell], puzzle.regions[cell]
            leaving = masks[now] & ~(1 << cell)
            if not g.sides[cell] & masks[home] or leaving.bit_count() < least or not g.connected(leaving):
                continue
            regions = list(puzzle.regions)
            regions[cell] = home
            if unique(regions):
                puzzle = replace(puzzle, regions=tuple(regions), solution=intended)
    return puzzle


# Symmetry moves tried on a repaired Queens board (each one that helps is counted: about a millisecond on 9x9).
REDRAW_MOVES = 150


def redraw_symmetry(puzzle: Puzzle, intended: Cells, rng: random.Random, count: Counter, least: int) -> Puzzle:
    """A repaired Queens board pulled back towards the symmetry it follows best (growth.symmetrize), each move
    kept only while the board stays unique: repair moves a fifth of a 9x9 board's cells on the way to uniqueness,
    and published boards had lost the symmetry LinkedIn's levels show (border symmetry median 0.64 against 0.81)."""
    unique = still_unique(puzzle, intended, count)
    spared = spared_cells(list(puzzle.region_masks), puzzle.size)
    regions = symmetrize(
        list(puzzle.regions), puzzle.size, intended | spared, spared, least, rng, REDRAW_MOVES, keep=unique
    )
    return replace(puzzle, regions=tuple(regions), solution=intended)


# Figure moves tried on a repaired Queens board, after the symmetry moves (each one that helps is counted).
TIDY_MOVES = 400


def tidy_figures(puzzle: Puzzle, intended: Cells, rng: random.Random, count: Counter, least: int) -> Puzzle:
    """A repaired Queens board whose regions are pulled towards symmetric figures (designs.figure_share): random
    one-cell boundary moves (no queen moves, both regions stay connected, the loser keeps `least` cells, a
    single-cell region stays single) kept when the two regions' figure shares sum higher, no cell nearby becomes
    the inside of a blob (three or four sides in its own region), the map's own symmetry does not drop and the
    board stays unique. Growth and repair leave blobs; a setter draws bars, pluses, rings and U shapes, and that
    told published boards from LinkedIn's most plainly (a region's figure share alone, held-out AUC 0.74). A move
    may fill a notch to make a figure, hence the blob check: real regions are strokes more often than ours."""
    size = puzzle.size
    g = grid(size)
    unique = still_unique(puzzle, intended, count)
    regions = list(puzzle.regions)
    masks = region_masks(regions, len(puzzle.region_masks))
    shares = [figure_share(mask, size) for mask in masks]
    kept = {name: symmetry_share(regions, size, name) for name in SYMMETRIES}
    mirror = max(SYMMETRIES, key=kept.__getitem__)  # the first best, in SYMMETRIES' order
    mirrored = kept[mirror]

    def insides(cells: list[int]) -> int:
        return sum((g.sides[c] & masks[regions[c]]).bit_count() >= 3 for c in cells)

    spared = spared_cells(masks, size)
    movable = cell_list(g.all_cells & ~intended & ~spared)
    for _ in range(TIDY_MOVES if movable else 0):  # every cell a queen's or a repeated shape's: nothing to tidy
        cell = rng.choice(movable)
        loser = regions[cell]
        winners = sorted(
            w
            for w in {regions[side] for side in cell_list(g.sides[cell])} - {loser}
            if masks[w].bit_count() > 1 and not masks[w] & spared
        )
        left = masks[loser] & ~(1 << cell)
        if not winners or left.bit_count() < least or not g.connected(left):
            continue
        winner = rng.choice(winners)
        gained = masks[winner] | 1 << cell
        after = (figure_share(left, size), figure_share(gained, size))
        if sum(after) <= shares[loser] + shares[winner]:
            continue
        near = [cell, *cell_list(g.sides[cell])]
        before = insides(near)
        regions[cell] = winner
        masks[loser], masks[winner] = left, gained
        moved_mirrored = symmetry_share(regions, size, mirror)
        if insides(near) <= before and moved_mirrored >= mirrored and unique(regions):
            mirrored = moved_mirrored
            shares[loser], shares[winner] = after
        else:
            regions[cell] = loser
            masks[loser], masks[winner] = left | 1 << cell, gained & ~(1 << cell)
    return replace(puzzle, regions=tuple(regions), solution=intended)


def tidy_queens(puzzle: Puzzle, intended: Cells, rng: random.Random, count: Counter, least: int) -> Puzzle:
    """A Queens board made unique, drawn back towards the symmetry it follows best, into figures, notches filled.
    None of the three reshapes a region whose shape another region repeats or the largest symmetric figure
    (designs.spared_cells): a setter's idea drawn several times and a picture's centrepiece are the plainest marks of
    a designed level, and these moves had reshaped a quarter of what repair left of the repeats."""
    puzzle = redraw_symmetry(puzzle, intended, rng, count, least)
    puzzle = tidy_figures(puzzle, intended, rng, count, least)
    return fill_notches(puzzle, intended, count, least)


def fill_notches(puzzle: Puzzle, intended: Cells, count: Counter, least: int) -> Puzzle:
    """A repaired Queens board with its notches filled (designs.notches: a cell of a non-figure region with three
    sides on one other region) where it can spare them: the cell goes to that other region when it holds no queen,
    the region it leaves stays connected with `least` cells, the board's notches fall, the map's own symmetry does
    not drop and the board stays unique. Repair leaves these one-cell teeth (published boards had 1.8 a board
    without this, LinkedIn's 9x9 levels 1.3, half of them none), and a reader picks generated boards out by them."""
    size = puzzle.size
    g = grid(size)
    unique = still_unique(puzzle, intended, count)
    regions = list(puzzle.regions)
    kept = {name: symmetry_share(regions, size, name) for name in SYMMETRIES}
    mirror = max(SYMMETRIES, key=kept.__getitem__)
    mirrored = kept[mirror]
    spared = spared_cells(list(puzzle.region_masks), size)
    tried: set[int] = set()
    while True:
        masks = region_masks(regions, len(puzzle.region_masks))
        found = [cell for cell in notches(regions, size) if cell not in tried and not (intended | spared) >> cell & 1]
        if not found:
            break
        cell = found[0]
        tried.add(cell)
        loser = regions[cell]
        others = [regions[side] for side in cell_list(g.sides[cell]) if regions[side] != loser]
        winner = max(set(others), key=others.count)
        left = masks[loser] & ~(1 << cell)
        if masks[winner] & spared or left.bit_count() < max(least, 1) or not g.connected(left):
            continue
        moved = [*regions]
        moved[cell] = winner
        moved_mirrored = symmetry_share(moved, size, mirror)
        if len(notches(moved, size)) < len(notches(regions, size)) and moved_mirrored >= mirrored and unique(moved):
            regions, mirrored = moved, moved_mirrored
    return replace(puzzle, regions=tuple(regions), solution=intended)


# Solutions a Queens map may have for `whittle` to take it on: all of them are listed once a round (a grown 9x9 map
# has a median 250, the most seen some thousands).
WHITTLE_LIST = 20_000


def whittle(puzzle: Puzzle, rounds: int, rng: random.Random, least: int, mirror: str | None = None) -> Repair:
    """A Queens map made unique by keeping whichever of its solutions survives, not the layout it grew around: each
    round makes the one-cell boundary move that leaves the fewest solutions (at least one), a random one among the
    fewest; when no move lowers the count, a move that keeps it (never back to a map already seen).

    A move of cell c from region a to region b keeps exactly the solutions without a queen on c (the others now
    have two queens in b) and adds those of the new map with a queen on c; so a round lists the map's solutions once
    and counts, per move, only the new map with c starred. Repair towards one fixed layout moves a median 30 of a
    grown 9x9 map's 81 cells (it may only break alternates, one impostor at a time); whittling moves about 10 on
    organic maps and 14 on exact left-right mirror maps (repair: 32), so the map keeps the drawing it grew with. A
    single-cell region (easy boards' planted gift) neither gives its cell nor takes one; no region drops under
    `least` cells.

    `mirror`: the map is an exact mirror map under that symmetry around queens that are not their own image (a
    left-right or top-bottom mirror allows none), so its solutions come in image pairs and it is never unique. While
    a move in image pairs (the cell and its image, to the target and the target's image region: the map stays exact)
    lowers the count, only those are made; then single moves break the last pair. The map ends a cell or a few off
    its symmetry, as LinkedIn's left-right mirror levels are."""
    assert puzzle.game == "queens" and puzzle.stars == 1, "whittling is for Queens maps"
    size = puzzle.size
    regions = puzzle.regions
    seen = {regions}
    listed = count_solutions(puzzle, WHITTLE_LIST)
    made = 0
    while True:
        solutions = listed.solutions
        if not listed.exact or not solutions:
            status = "no_solution" if listed.exact else "ambiguous"
            return Repair(replace(puzzle, regions=regions, solution=None), status, made, ())
        if len(solutions) == 1:
            return Repair(replace(puzzle, regions=regions, solution=solutions[0]), "unique", made, ())
        if made >= rounds:
            return Repair(replace(puzzle, regions=regions, solution=None), "ambiguous", made, ())
        sizes = [0] * size
        for region in regions:
            sizes[region] += 1
        if mirror is not None:
            paired = pair_step(regions, size, mirror, solutions, seen, least, rng)
            if paired is not None:
                regions = paired
                seen.add(regions)
                made += 1
                listed = count_solutions(Puzzle(size, 1, regions, "queens"), WHITTLE_LIST)
                continue
            mirror = None  # no pair move helps any more: single moves from here
        fewest, best = len(solutions), list[tuple[int, ...]]()  # sideways at worst, never up
        for move in boundary_moves(regions, size, grid(size).all_cells):
            # a single-cell source fails the first test already: it would drop under max(least, 1)
            if sizes[move.source] - 1 < max(least, 1) or sizes[move.target] == 1:
                continue
            moved = apply_move(regions, move)
            if moved in seen:
                continue
            # Only whether the new map beats the fewest so far (or ties it) matters: count no further.
            total = count_after_moving(Puzzle(size, 1, moved, "queens"), solutions, (move.cell,), fewest + 1)
            if total < 1 or total > fewest:
                continue
            if total < fewest:
                fewest, best = total, []
            best.append(moved)
        if not best:
            return Repair(replace(puzzle, regions=regions, solution=None), "ambiguous", made, ())
        regions = rng.choice(best)
        seen.add(regions)
        made += 1
        listed = count_solutions(Puzzle(size, 1, regions, "queens"), WHITTLE_LIST)


def pair_step(
    regions: tuple[int, ...],
    size: int,
    mirror: str,
    solutions: tuple[Cells, ...],
    seen: set[tuple[int, ...]],
    least: int,
    rng: random.Random,
) -> tuple[int, ...] | None:
    """The map after the pair move (a cell and its image) that leaves the fewest solutions, fewer than the map's
    `solutions` (all of them), or None when no pair move lowers the count."""
    g = grid(size)
    now = len(solutions)
    partners = mirror_partners(regions, size, mirror)
    sizes = [0] * size
    for region in regions:
        sizes[region] += 1
    fewest, best = now, list[tuple[int, ...]]()
    for move in boundary_moves(regions, size, g.all_cells):
        image = mirror_cell(move.cell, size, mirror)
        touched = {move.source, move.target, partners[move.source], partners[move.target]}
        if image == move.cell or regions[image] != partners[move.source] or any(sizes[r] == 1 for r in touched):
            continue  # a planted single cell neither gives its cell nor takes one
        moved = list(apply_move(regions, move))
        moved[image] = partners[move.target]
        masks = region_masks(moved, size)
        if any(masks[r].bit_count() < max(least, 1) or not g.connected(masks[r]) for r in touched):
            continue
        board = tuple(moved)
        if board in seen:
            continue
        total = count_after_moving(Puzzle(size, 1, board, "queens"), solutions, (move.cell, image), fewest + 1)
        if total < 1 or total > fewest or total == now:
            continue
        if total < fewest:
            fewest, best = total, []
        best.append(board)
    return rng.choice(best) if best else None


def count_after_moving(moved: Puzzle, solutions: Sequence[Cells], cells: Sequence[int], limit: int) -> int:
    """The solutions of `moved`, a Queens map that differs only in the regions of `cells` from one whose solutions
    are all of `solutions`, counted up to `limit` (`limit` means that many or more).

    The old solutions with a queen on none of the cells stay solutions (each region keeps its one queen) and the
    others die (a region that took a starred cell now holds two); every other solution of the new map has a queen on
    one of the cells, counted cell by cell with the cells before it empty. Those counts fix a queen and are far
    cheaper than counting the new map whole: whittling an exact mirror map, whose pair moves were counted whole, cost
    2 s a board, half of queens-hard's repair time."""
    taken = sum(1 << cell for cell in cells)
    total = sum(1 for solution in solutions if not solution & taken)
    empty = 0
    for cell in cells:
        if total >= limit:
            break
        total += count_solutions(moved, limit - total, stars=1 << cell, empty=empty).count
        empty |= 1 << cell
    return min(total, limit)
