"""How well a plain classifier tells real boards from generated ones, on held-out halves (0.5: indistinguishable).

    python bench/looks_auc.py                        both games, gated growth, split seeds 0-4
    python bench/looks_auc.py --game queens --splits 10
    python bench/looks_auc.py --accepted 150         also 150 published boards per game (daily sizes; minutes)
    python bench/looks_auc.py --game queens --accepted 300 --first 300 --workers 2 --splits 20
                                                     published boards from seeds 300-599, two processes
    python bench/looks_auc.py --modes 60             Queens: acceptance per design mode over 60 candidates a slot
    python bench/looks_auc.py --repaired 40          cells repair moves, over 40 candidates a band (daily sizes)
    python bench/looks_auc.py --game queens --mirrors 200    left-right mirror maps whittled against repaired
    python bench/looks_auc.py --without bar_share crossings area_second
                                                     also the own features' AUC less these (what the rest see)
    python bench/looks_auc.py --game queens --accepted 300 --mode organic
                                                     also the published boards of one design mode against
                                                     LinkedIn's that design_of names so

Real boards: Star Battle from the archive and the hand-made file, Queens from LinkedIn's levels (../shared/data).
Generated (`gated`): for every real board one growth of the same size and stars that passed the looks gate and the
give-away rule (grow_gated, bands in turn, seeds from the board's index), before repair; `--accepted N`: N boards
that `generate` published for the daily sizes (10x10 2-star, 9x9 Queens), seeds 0..N-1 (`--first` moves them) over
the bands, compared with the real boards of that size. A held-out AUC grows with the boards the classifier learns
from (the same published Queens boards: 0.62 over 40 of them, 0.77 over 150), so figures compare only at the same
counts.

The classifier is a logistic regression (bench/logistic_fit.py: standardised features, L2 penalty 1, classes
weighted equally) fitted on a random half of each side and scored on the other half, once per split seed; the
AUCs' mean and range are printed for two feature sets: this script's own `board_features` (below; they are not the
looks model's, so the generator is not graded on the features it was fitted to) and the looks model's twelve
(looks.FEATURES). Then each own feature's AUC alone (how far from 0.5 either way), the largest first: what still
separates the two sides. For Queens 9x9, last, what became of each design mode: of the gated and of the published
boards drawn in it, how many designs.design_of still names so (report_designs).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from logistic_fit import auc, fit_standardised  # noqa: E402

from starbattle_core.formats import read_jsonl  # noqa: E402
from starbattle_core.generator import BANDS, GeneratorConfig, Slot, generate  # noqa: E402
from starbattle_core.generator.designs import (  # noqa: E402
    MIRROR_SHARE,
    MODES,
    design_of,
    figure_share,
    notches,
    repeated_shapes,
    symmetry_share,
)
from starbattle_core.generator.funnel import grow_candidate_again, new_batch, run_stages, sample_stage  # noqa: E402
from starbattle_core.generator.growth import grow_gated  # noqa: E402
from starbattle_core.generator.looks import FEATURES, looks_features  # noqa: E402
from starbattle_core.generator.stages import repair_for_slot  # noqa: E402
from starbattle_core.generator.symmetry import grow_mirrored  # noqa: E402
from starbattle_core.grader import GradingConfig  # noqa: E402
from starbattle_core.layouts import layout_to_cells, sample_layouts  # noqa: E402
from starbattle_core.puzzle import Puzzle  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
REAL_FILES = {
    "starbattle": ("starbattle/archive.jsonl", "starbattle/handmade.jsonl"),
    "queens": ("queens/linkedin.jsonl",),
}
DAILY = {"starbattle": (10, 2), "queens": (9, 1)}


def bands(game: str) -> tuple[str, ...]:
    return tuple(band for band in BANDS if not (game == "queens" and band == "expert"))


def real_boards(game: str) -> list[Puzzle]:
    return [p for name in REAL_FILES[game] for p in read_jsonl(str(SHARED / name))]


def gated_boards(game: str, shapes: list[tuple[int, int]], seed: int) -> list[tuple[Puzzle, str]]:
    """One gated growth per (size, stars) in `shapes`, bands in turn, with the design mode it was drawn in."""
    config = GeneratorConfig()
    boards = []
    for index, (size, stars) in enumerate(shapes):
        slot = Slot(game, size, stars, bands(game)[index % len(bands(game))])
        for attempt in range(20):  # a growth whose every try failed the gate: the next layout
            layout_rng = np.random.default_rng([seed, index, attempt])
            layout = layout_to_cells(sample_layouts(size, stars, 1, layout_rng)[0])
            growth = grow_gated(slot, layout, random.Random(f"{seed}-{index}-{attempt}"), config)
            if growth.regions is not None:
                boards.append((Puzzle(size, stars, growth.regions, game, solution=growth.layout), growth.mode))
                break
    return boards


def accepted_board(game: str, seed: int) -> tuple[Puzzle, str] | None:
    """The board `generate` publishes for the daily size of `game` from `seed` (the bands in turn), None if none,
    with the design mode its Queens candidate was drawn in (its growth run again; "" for Star Battle)."""
    size, stars = DAILY[game]
    slot = Slot(game, size, stars, bands(game)[seed % len(bands(game))])
    config = GeneratorConfig(max_candidates=300)
    board = generate(slot, seed, 600.0, config).board
    if board is None:
        return None
    if game != "queens":
        return board.puzzle, ""
    return board.puzzle, grow_candidate_again(slot, seed, board.candidate, config).mode


def accepted_boards(game: str, count: int, first: int = 0, workers: int = 1) -> list[tuple[Puzzle, str]]:
    """The boards published from seeds first..first+count-1 with their drawn modes, in seed order (each seed is a
    whole generate run, so the workers change how long it takes, never which boards)."""
    seeds = range(first, first + count)
    with ProcessPoolExecutor(workers) as pool:
        boards = list(pool.map(accepted_board, [game] * count, seeds))
    return [board for board in boards if board is not None]


def report_designs(label: str, real: list[Puzzle], made: list[tuple[Puzzle, str]]) -> None:
    """Per design mode: how many generated boards were drawn in it and how many of those design_of still names so
    (gated growth against published boards: what repair and tidying take apart), then design_of's mix of the
    generated boards and of the real ones."""
    named = [(drawn, design_of(puzzle)[0]) for puzzle, drawn in made]
    print(f"    design kept ({label} boards by the mode drawn: named so by design_of / drawn; named otherwise):")
    for mode in MODES:
        seen = Counter(name for drawn, name in named if drawn == mode)
        others = ", ".join(f"{name} {n}" for name, n in seen.most_common() if name != mode)
        print(f"      {mode}: {seen[mode]} / {sum(seen.values())}" + (f"; {others}" if others else ""))
    for side, names in ((label, [name for _, name in named]), ("real", [design_of(p)[0] for p in real])):
        mix = Counter(names)
        print(f"    design_of, {side}: " + ", ".join(f"{m} {mix[m] / len(names):.0%}" for m in MODES))


# --- this script's own features ------------------------------------------------------------------------------


def _runs(line: np.ndarray) -> list[int]:
    """Lengths of the runs of True in a 1-D boolean array."""
    padded = np.concatenate([[False], line, [False]]).astype(np.int8)
    steps = np.diff(padded)
    return list(np.nonzero(steps == -1)[0] - np.nonzero(steps == 1)[0])


def _same_map(a: np.ndarray, b: np.ndarray) -> float:
    """The share of neighbouring cell pairs on which two region maps agree about "same region or not"."""
    agree = (a[:-1, :] == a[1:, :]) == (b[:-1, :] == b[1:, :])
    agree2 = (a[:, :-1] == a[:, 1:]) == (b[:, :-1] == b[:, 1:])
    return float((agree.sum() + agree2.sum()) / (agree.size + agree2.size))


def board_features(puzzle: Puzzle) -> dict[str, float]:
    """Shape features of a region map, none of them size-bound: sizes, convexity, borders, contacts, design."""
    n = puzzle.size
    grid = np.asarray(puzzle.regions).reshape(n, n)
    count = int(grid.max()) + 1
    areas = np.bincount(grid.ravel(), minlength=count).astype(float)
    fair = n * n / count
    across = grid[:-1, :] != grid[1:, :]  # border below (r, c)
    down = grid[:, :-1] != grid[:, 1:]  # border right of (r, c)
    border = int(across.sum() + down.sum())
    out: dict[str, float] = {}
    ranked = np.sort(areas) / fair
    out["area_min"] = float(ranked[0])
    out["area_max"] = float(ranked[-1])
    out["area_second"] = float(ranked[-2])
    out["area_cv"] = float(areas.std() / areas.mean())
    out["area_median"] = float(np.median(ranked))
    out["border_share"] = border / (2 * n * (n - 1))

    fill, convex, bars, rects, perim, holes, arms, width1 = [], 0, 0, 0, [], 0, [], 0
    touching = np.zeros((count, count), dtype=bool)
    touching[grid[:-1, :][across], grid[1:, :][across]] = True
    touching[grid[:, :-1][down], grid[:, 1:][down]] = True
    touching |= touching.T
    degree = touching.sum(axis=1)
    edge = np.zeros(count, dtype=bool)
    edge[np.unique(np.concatenate([grid[0], grid[-1], grid[:, 0], grid[:, -1]]))] = True
    for region in range(count):
        mask = grid == region
        rows, cols = np.nonzero(mask)
        box = (rows.max() - rows.min() + 1) * (cols.max() - cols.min() + 1)
        fill.append(areas[region] / box)
        # orthogonally convex: each row and each column meets the region in one run
        convex += all(len(_runs(mask[r])) <= 1 for r in range(n)) and all(len(_runs(mask[:, c])) <= 1 for c in range(n))
        thin = rows.max() == rows.min() or cols.max() == cols.min()
        bars += bool(thin and areas[region] >= 3)
        rects += bool(areas[region] == box and not thin and areas[region] >= 4)
        p = 4 * areas[region] - 2 * (int((mask[:-1, :] & mask[1:, :]).sum()) + int((mask[:, :-1] & mask[:, 1:]).sum()))
        perim.append(p / (2 * np.ceil(2 * np.sqrt(areas[region]))))
        holes += bool(degree[region] == 1 and not edge[region])
        own = np.zeros((n, n), dtype=int)
        own[1:, :] += mask[:-1, :] & mask[1:, :]
        own[:-1, :] += mask[:-1, :] & mask[1:, :]
        own[:, 1:] += mask[:, :-1] & mask[:, 1:]
        own[:, :-1] += mask[:, :-1] & mask[:, 1:]
        arms.append(int(((own == 1) & mask).sum()))
        width1 += int((mask & (own <= 2)).sum())
    out["fill_mean"] = float(np.mean(fill))
    out["fill_min"] = float(np.min(fill))
    out["convex_share"] = convex / count
    out["bar_share"] = bars / count
    out["rect_share"] = rects / count
    out["perimeter_ratio"] = float(np.mean(perim))
    out["perimeter_ratio_max"] = float(np.max(perim))
    out["enclosed_share"] = holes / count
    out["ends_per_region"] = float(np.mean(arms))
    out["thin_cells"] = width1 / (n * n)
    # Lumps: the cells outside the largest region that lie in a 2x2 block of their own region. A setter's regions
    # besides the background are strokes, bars and figures one or two cells wide; readers call grown ones lumpy.
    block = (grid[:-1, :-1] == grid[:-1, 1:]) & (grid[:-1, :-1] == grid[1:, :-1]) & (grid[:-1, :-1] == grid[1:, 1:])
    lumpy = np.zeros((n, n), dtype=bool)
    for dr in (0, 1):
        for dc in (0, 1):
            lumpy[dr : n - 1 + dr, dc : n - 1 + dc] |= block
    rest = grid != int(areas.argmax())
    out["lump_cells"] = float((lumpy & rest).sum() / max(int(rest.sum()), 1))
    out["degree_mean"] = float(degree.mean())
    out["degree_max"] = float(degree.max() / count)
    out["degree_cv"] = float(degree.std() / degree.mean())
    out["edge_share"] = float(edge.mean())

    # Border geometry: straight runs, and the junctions where borders meet (inner grid points).
    runs = [r for row in across for r in _runs(row)] + [r for col in down.T for r in _runs(col)]
    out["run_mean"] = float(np.mean(runs)) / n if runs else 0.0
    out["run_max"] = float(max(runs, default=0)) / n
    north = down[:-1, :]  # the border segment going up from inner point (r+1, c+1)
    south = down[1:, :]
    west = across[:, :-1]
    east = across[:, 1:]
    arms_at = north.astype(int) + south + west + east
    out["crossings"] = float((arms_at == 4).sum() / max(border, 1))
    out["tees"] = float((arms_at == 3).sum() / max(border, 1))
    out["bends"] = float(((arms_at == 2) & ~((north & south) | (west & east))).sum() / max(border, 1))

    # Design: how close the map is to its mirror images and turns (neighbour pairs agreeing on same-or-not).
    images = {
        "mirror_lr": np.fliplr(grid),
        "mirror_ud": np.flipud(grid),
        "mirror_diag": grid.T,
        "mirror_anti": np.rot90(grid, 2).T,
        "turn_half": np.rot90(grid, 2),
        "turn_quarter": np.rot90(grid, 1),
    }
    shares = {name: _same_map(grid, image) for name, image in images.items()}
    out["symmetry_best"] = max(shares.values())
    out["symmetry_mirror"] = max(shares["mirror_lr"], shares["mirror_ud"])
    out["symmetry_turn"] = shares["turn_half"]

    # Figures: how symmetric each region is on its own (designs.figure_share, the tidying's own measure: the
    # setters' bars, pluses, rings and U shapes score 1.0).
    figure = [figure_share(mask, n) for mask in puzzle.region_masks]
    out["figure_share"] = float(np.mean(np.array(figure) == 1.0))
    out["figure_mean"] = float(np.mean(figure))
    # The largest figure: LinkedIn's setters draw one big figure (a plus, a tree, a ring, a block) on most levels, the
    # pictures readers never took for generated; grown blobs leave small ones (8 cells or more on 58% of LinkedIn's
    # 9x9 levels, on 36% of the first 120 published boards).
    largest = (mask.bit_count() for mask, share in zip(puzzle.region_masks, figure, strict=True) if share == 1.0)
    out["figure_largest"] = max(largest, default=0) / (n * n)
    # Bumps: one-cell teeth of regions that are not figures (designs.notches), what a contact sheet showed.
    out["notches"] = len(notches(puzzle.regions, n, figure)) / count
    # One idea drawn several times: regions of 4 cells or more that another region repeats, turned or mirrored
    # (designs.repeated_shapes; what readers of the contact sheets called matching rings and crosses set in a field).
    out["repeated_shapes"] = repeated_shapes(puzzle) / count
    return out


OWN = tuple(board_features(Puzzle(4, 1, (0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3))))


def own_matrix(boards: list[Puzzle]) -> np.ndarray:
    return np.array([[board_features(p)[f] for f in OWN] for p in boards])


def looks_matrix(boards: list[Puzzle]) -> np.ndarray:
    return np.array([[looks_features(p)[f] for f in FEATURES] for p in boards])


def held_out_aucs(x_real: np.ndarray, x_gen: np.ndarray, splits: int) -> list[float]:
    """One AUC per split seed: fitted on a random half of each side, scored on the other half."""
    scores = []
    for seed in range(splits):
        rng = np.random.default_rng(seed)
        held_real = rng.permutation(len(x_real)) < len(x_real) // 2
        held_gen = rng.permutation(len(x_gen)) < len(x_gen) // 2
        train = np.vstack([x_real[~held_real], x_gen[~held_gen]])
        labels = np.concatenate([np.ones((~held_real).sum()), np.zeros((~held_gen).sum())])
        fit = fit_standardised(train, labels, 1.0)
        scores.append(auc(fit.logits(x_real[held_real]), fit.logits(x_gen[held_gen])))
    return scores


def report(
    label: str, real: list[Puzzle], generated: list[Puzzle], splits: int, top: int, without: tuple[str, ...] = ()
) -> None:
    own_real, own_gen = own_matrix(real), own_matrix(generated)
    own = held_out_aucs(own_real, own_gen, splits)
    model = held_out_aucs(looks_matrix(real), looks_matrix(generated), splits)
    print(
        f"{label}: {len(real)} real, {len(generated)} generated; held-out AUC, own features "
        f"{np.mean(own):.3f} ({min(own):.3f}-{max(own):.3f}), looks-model features {np.mean(model):.3f} "
        f"({min(model):.3f}-{max(model):.3f}), {splits} splits"
    )
    if without:
        kept = [j for j, name in enumerate(OWN) if name not in without]
        rest = held_out_aucs(own_real[:, kept], own_gen[:, kept], splits)
        print(f"    own features without {', '.join(without)}: {np.mean(rest):.3f} ({min(rest):.3f}-{max(rest):.3f})")
    alone = []
    for j, name in enumerate(OWN):
        single = auc(own_real[:, j], own_gen[:, j])
        alone.append((abs(single - 0.5), name, single, np.median(own_real[:, j]), np.median(own_gen[:, j])))
    alone.sort(reverse=True)
    print(
        "    alone (AUC; median real / generated): "
        + "; ".join(
            f"{name} {single:.2f} ({real_median:.3g}/{gen_median:.3g})"
            for _, name, single, real_median, gen_median in alone[:top]
        )
    )


def measure_modes(count: int) -> None:
    """Queens design modes: each daily Queens slot's candidates 0..count-1 (seed 0) through the whole funnel, as
    `generate` runs them; per mode, how many candidates drew it, how many grew a map past the looks gate (within
    growth_looks_tries attempts) and how many passed every stage (unique, in band, over the fun and looks gates)."""
    config, grading = GeneratorConfig(), GradingConfig()
    for band in bands("queens"):
        slot = Slot("queens", 9, 1, band)
        drew: Counter[str] = Counter()
        grew: Counter[str] = Counter()
        passed: Counter[str] = Counter()
        start = time.perf_counter()
        for index in range(count):
            batch = new_batch(slot, 0, range(index, index + 1))
            [candidate] = sample_stage(batch, config, grading).candidates
            probe = random.Random()
            probe.setstate(candidate.rng.getstate())  # the candidate's own stream, copied: the run below is untouched
            growth = grow_gated(slot, candidate.layout, probe, config)
            drew[growth.mode] += 1
            grew[growth.mode] += growth.regions is not None
            passed[growth.mode] += bool(run_stages(batch, config, grading).candidates)
        seconds = (time.perf_counter() - start) / count
        print(
            f"queens 9x9 {band}: {count} candidates, {seconds:.2f} s each; per mode drawn / grown past the looks "
            "gate / accepted: " + ", ".join(f"{m} {drew[m]}/{grew[m]}/{passed[m]}" for m in MODES if drew[m])
        )


def measure_repair(game: str, count: int) -> None:
    """How much of a grown map repair redraws: candidates 0..count-1 (seed 0) of the daily size in each band,
    grown past the looks gate and repaired as the funnel repairs them (easy hunting aside); for the ones repair made
    unique, the cells left in another region than they grew in (after giving back what it could)."""
    config, grading = GeneratorConfig(), GradingConfig()
    size, stars = DAILY[game]
    moved, unique, grown = [], 0, 0
    for band in bands(game):
        slot = Slot(game, size, stars, band)
        for index in range(count):
            [candidate] = sample_stage(new_batch(slot, 0, range(index, index + 1)), config, grading).candidates
            growth = grow_gated(slot, candidate.layout, candidate.rng, config)
            if growth.regions is None:
                continue
            grown += 1
            puzzle = Puzzle(size, stars, growth.regions, game, solution=growth.layout)
            mended = repair_for_slot(puzzle, slot, candidate.rng, config)
            if mended.status == "unique":
                unique += 1
                moved.append(sum(a != b for a, b in zip(puzzle.regions, mended.puzzle.regions, strict=True)))
    q25, q50, q75 = np.percentile(moved, [25, 50, 75]) if moved else (0, 0, 0)
    print(
        f"{game} {size}x{size} repair: {grown} grown maps, {unique} made unique; cells left moved (of {size * size}): "
        f"median {q50:.0f}, quartiles {q25:.0f}-{q75:.0f}, none moved {sum(m == 0 for m in moved)}"
    )


def measure_mirrors(count: int) -> None:
    """Exact left-right and top-bottom mirror growths (the two in turn) around the layout of seeds 0..count-1, bands in
    turn, made unique as the funnel does, whittled in image pairs and repaired (`queens_mirror_whittle` off): how
    many end unique, how many of those keep MIRROR_SHARE of their borders' symmetry, cells moved, seconds a map."""
    for whittled in (True, False):
        config = GeneratorConfig(queens_mirror_whittle=whittled)
        grown, kept, shares, moved, seconds = 0, 0, [], [], 0.0
        for seed in range(count):
            rng = random.Random(seed)
            name = ("left_right", "top_bottom")[seed % 2]
            slot = Slot("queens", 9, 1, bands("queens")[seed % 3])
            layout = layout_to_cells(sample_layouts(9, 1, 1, np.random.default_rng(seed))[0])
            owner = grow_mirrored(9, layout, name, rng, config, config.queens_background_appetite, 3)
            if owner is None or symmetry_share(owner, 9, name) < 1.0:
                continue
            grown += 1
            start = time.perf_counter()
            mended = repair_for_slot(Puzzle(9, 1, tuple(owner), "queens", solution=layout), slot, rng, config)
            seconds += time.perf_counter() - start
            if mended.status == "unique":
                shares.append(symmetry_share(mended.puzzle.regions, 9, name))
                kept += shares[-1] >= MIRROR_SHARE
                moved.append(sum(a != b for a, b in zip(owner, mended.puzzle.regions, strict=True)))
        print(
            f"queens 9x9 exact left-right/top-bottom mirror maps, {'whittled' if whittled else 'repaired'}: {grown} "
            f"grown, {len(shares)} unique, {kept} of them at {MIRROR_SHARE} symmetry or more (median "
            f"{np.median(shares):.3f}); cells moved median {np.median(moved):.0f}; "
            f"{seconds / max(grown, 1):.2f} s a map"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=("starbattle", "queens", "both"), default="both")
    parser.add_argument("--splits", type=int, default=5, help="split seeds (0..N-1)")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the generated boards")
    parser.add_argument("--accepted", type=int, default=0, help="also N published boards per game")
    parser.add_argument("--first", type=int, default=0, help="the published boards' first seed")
    parser.add_argument("--workers", type=int, default=1, help="processes generating the published boards")
    parser.add_argument("--modes", type=int, default=0, help="Queens: acceptance per mode over N candidates a slot")
    parser.add_argument("--top", type=int, default=8, help="features listed alone")
    parser.add_argument("--repaired", type=int, default=0, help="cells repair moves, over N candidates a band")
    parser.add_argument("--mirrors", type=int, default=0, help="Queens: exact left-right mirror maps, whittled or not")
    parser.add_argument("--without", nargs="+", default=[], metavar="FEATURE", help="also the own features less these")
    parser.add_argument("--mode", choices=MODES, default=None, help="Queens --accepted: also one design mode alone")
    args = parser.parse_args()
    # Bad arguments: one line and exit status 2 (argparse's own exit, without its usage text).
    if args.mode and (args.game != "queens" or not args.accepted):
        parser.exit(2, "error: --mode compares published Queens boards: give --game queens --accepted N\n")
    unknown = sorted(set(args.without) - set(OWN))
    if unknown:
        names = ", ".join(OWN)
        parser.exit(2, f"error: --without: no own feature named {', '.join(unknown)} (they are: {names})\n")
    without = tuple(args.without)
    games = ("starbattle", "queens") if args.game == "both" else (args.game,)
    for game in games:
        real = real_boards(game)
        start = time.perf_counter()
        grown = gated_boards(game, [(p.size, p.stars) for p in real], args.seed)
        gated = [puzzle for puzzle, _ in grown]
        seconds = time.perf_counter() - start
        print(f"{game}: {len(gated)} gated growths in {seconds:.1f} s ({1000 * seconds / len(gated):.1f} ms each)")
        report(f"{game} gated, all sizes", real, gated, args.splits, args.top, without)
        size, stars = DAILY[game]
        same = [p for p in real if (p.size, p.stars) == (size, stars)]
        report(
            f"{game} gated, {size}x{size}",
            same,
            [p for p in gated if (p.size, p.stars) == (size, stars)],
            args.splits,
            args.top,
            without,
        )
        if game == "queens":
            report_designs("gated", same, [(p, drawn) for p, drawn in grown if p.size == size])
        if args.accepted:
            start = time.perf_counter()
            published = accepted_boards(game, args.accepted, args.first, args.workers)
            accepted = [puzzle for puzzle, _ in published]
            last = args.first + args.accepted - 1
            print(
                f"{game}: {len(accepted)} accepted boards (seeds {args.first}-{last}) in "
                f"{time.perf_counter() - start:.0f} s"
            )
            report(f"{game} accepted, {size}x{size}", same, accepted, args.splits, args.top, without)
            if game == "queens":
                report_designs("published", same, published)
            if args.mode:
                # Does what tells them apart lie in the mix of modes, or within a mode? (design_of, both sides)
                real_mode = [p for p in same if design_of(p)[0] == args.mode]
                made_mode = [p for p in accepted if design_of(p)[0] == args.mode]
                report(f"{game} accepted, {size}x{size}, {args.mode} maps", real_mode, made_mode, args.splits, args.top)
        if args.repaired:
            measure_repair(game, args.repaired)
        if args.mirrors and game == "queens":
            measure_mirrors(args.mirrors)
    if args.modes:
        measure_modes(args.modes)


if __name__ == "__main__":
    main()
