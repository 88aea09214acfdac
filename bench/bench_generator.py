"""Measure the generator (in-process timings; run on a quiet machine for figures to quote).

    python bench/bench_generator.py --looks        the looks model: gate rejections, held-out AUC real vs raw,
                                                   gated and accepted generated boards, give-away rates,
                                                   --sheet out.html for a contact sheet of 12 + 12 per game
    python bench/bench_generator.py --unique       share of attempts ending unique without and with repair
    python bench/bench_generator.py --slots        seconds to one accepted board for each of the seven daily slots
    python bench/bench_generator.py --big          the same for a 14x14 3-star board of each band (not a daily
                                                   slot: a weekend-sized board), with CPU seconds and the stages;
                                                   --bands easy,medium for some of them
    python bench/bench_generator.py --slot queens-hard --seeds 40
                                                   one slot of config/starbattle.yaml with its own candidate
                                                   budget and seconds: wall and CPU seconds, candidates, misses
    python bench/bench_generator.py --experience   experience-score parts: hand-made, raw generated, accepted
    python bench/bench_generator.py --variety      10x10 2-star layout pairs sharing > 60% of stars: windows vs random

With no option, everything runs (several minutes). `--seeds N` sets the seeds per slot, `--attempts N` the
attempts for --unique, `--budget S` the seconds per slot and seed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from starbattle_core.formats import read_jsonl  # noqa: E402
from starbattle_core.generator import (  # noqa: E402
    GeneratorConfig,
    Slot,
    generate,
    grow_queens_regions,
    grow_starbattle_regions,
    looks_score,
    near_duplicate,
    repair,
)
from starbattle_core.generator.growth import grow_gated  # noqa: E402
from starbattle_core.grader import grade  # noqa: E402
from starbattle_core.layouts import enumerate_layouts, layout_to_cells, sample_layouts  # noqa: E402
from starbattle_core.puzzle import InputError, Puzzle  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
import fit_looks  # noqa: E402
from logistic_fit import auc, fit_standardised  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
REAL = {
    "starbattle/handmade": "starbattle/handmade.jsonl",
    "starbattle/archive": "starbattle/archive.jsonl",
    "queens/linkedin": "queens/linkedin.jsonl",
    "queens/community": "queens/community.jsonl",
}
DAILY = [
    Slot("starbattle", 10, 2, "easy"),
    Slot("starbattle", 10, 2, "medium"),
    Slot("starbattle", 10, 2, "hard"),
    Slot("starbattle", 10, 2, "expert"),
    Slot("queens", 9, 1, "easy"),
    Slot("queens", 9, 1, "medium"),
    Slot("queens", 9, 1, "hard"),
]
BIG = [Slot("starbattle", 14, 3, band) for band in ("easy", "medium", "hard", "expert")]


def pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def raw_board(game: str, size: int, stars: int, seed: int, band: str = "medium") -> tuple[Puzzle, int]:
    """A freshly grown board (one attempt: no looks gate, no repair) and its intended solution."""
    layout = layout_to_cells(sample_layouts(size, stars, 1, np.random.default_rng([seed, size, stars]))[0])
    rng = random.Random(seed)
    growth = None
    while growth is None or growth.regions is None:  # the first attempt that walls no region in under its minimum
        if game == "queens":
            growth = grow_queens_regions(size, layout, rng, band=band)
        else:
            growth = grow_starbattle_regions(size, stars, layout, rng)
    return Puzzle(size, stars, growth.regions, game, solution=growth.layout), growth.layout


def giveaway_rates(boards: list[Puzzle]) -> str:
    """The give-away measures of the issue: Star Battle 2-star regions of 3 cells or fewer; Queens 1- and
    2-cell regions."""
    smallest = [min(m.bit_count() for m in p.region_masks) for p in boards]
    if boards and boards[0].game == "queens":
        single = sum(s == 1 for s in smallest) / len(boards)
        two = sum(s <= 2 for s in smallest) / len(boards)
        return f"single-cell region {single:5.1%}, region of <= 2 cells {two:5.1%}"
    two_star = [s for s, p in zip(smallest, boards, strict=False) if p.stars == 2]
    if not two_star:
        return "no 2-star boards"
    return f"2-star boards with a region of <= 3 cells {sum(s <= 3 for s in two_star) / len(two_star):5.1%}"


def separation(real: list[Puzzle], generated: list[Puzzle], seed: int = 7) -> float:
    """Held-out AUC of a fresh logistic regression (fit_looks' features, logistic_fit's fitter) telling real from
    generated boards: 0.5 means indistinguishable. Half of each side is held out."""
    x_real, x_gen = fit_looks.matrix(real), fit_looks.matrix(generated)
    rng = np.random.default_rng(seed)
    held_real, held_gen = rng.random(len(real)) < 0.5, rng.random(len(generated)) < 0.5
    train = np.vstack([x_real[~held_real], x_gen[~held_gen]])
    labels = np.concatenate([np.ones((~held_real).sum()), np.zeros((~held_gen).sum())])
    fit = fit_standardised(train, labels, 1.0)
    return auc(fit.logits(x_real[held_real]), fit.logits(x_gen[held_gen]))


def gated_boards(slots: list[Slot], count: int) -> list[Puzzle]:
    """Boards from the generator's growth stage with its looks and give-away gates (before repair)."""
    config = GeneratorConfig()
    boards = []
    for seed in range(count):
        slot = slots[seed % len(slots)]
        layout = layout_to_cells(sample_layouts(slot.size, slot.stars, 1, np.random.default_rng([seed, 12]))[0])
        growth = grow_gated(slot, layout, random.Random(seed), config)
        if growth.regions is not None:
            boards.append(Puzzle(slot.size, slot.stars, growth.regions, slot.game, solution=growth.layout))
    return boards


def contact_sheet(path: Path, rows: dict[str, list[Puzzle]]) -> None:
    """An HTML page with one row of boards per group, each drawn by starbattle_core.svg."""
    from starbattle_core.svg import board_svg

    parts = ["<html><body style='font-family:sans-serif;background:#fff'>"]
    for name, boards in rows.items():
        parts.append(f"<h3>{name}</h3><div style='display:flex;flex-wrap:wrap;gap:8px'>")
        for i, board in enumerate(boards):
            svg = board_svg(board, cell=14, labels=False, id_prefix=f"{abs(hash(name))}-{i}")
            parts.append(f"<div>{svg}<br><small>looks {looks_score(board):.0f}</small></div>")
        parts.append("</div>")
    parts.append("</body></html>")
    path.write_text("\n".join(parts), encoding="utf-8")


def bench_looks(count: int, seeds: int, budget: float, sheet: Path | None) -> None:
    print("== looks: the fitted model (looks_model.json), real boards vs generated ==")
    gate = GeneratorConfig().looks_gate
    real = {game: fit_looks.real_boards(game) for game in ("starbattle", "queens")}
    for name, f in REAL.items():
        boards = list(read_jsonl(str(SHARED / f)))
        scores = [looks_score(p) for p in boards]
        print(
            f"{name:28s} n={len(boards):5d} pass {sum(s >= gate for s in scores) / len(scores):6.1%}  "
            f"{giveaway_rates(boards)}"
        )
    sheets: dict[str, list[Puzzle]] = {}
    for game, slots in (("starbattle", DAILY[:4]), ("queens", DAILY[4:])):
        raw = [
            raw_board(game, slot.size, slot.stars, seed, slot.band)[0]
            for seed in range(count)
            for slot in slots[seed % len(slots) :][:1]
        ]
        gated = gated_boards(slots, count)
        accepted: list[Puzzle] = []
        for seed in range(seeds):
            generation = generate(slots[seed % len(slots)], seed, budget)
            if generation.board is not None:
                accepted.append(generation.board.puzzle)
        same_size = [p for p in real[game] if (p.size, p.stars) == (slots[0].size, slots[0].stars)]
        for name, boards in (("raw growth", raw), ("gated growth", gated), ("accepted", accepted)):
            scores = [looks_score(p) for p in boards]
            rejected = sum(s < gate for s in scores) / len(scores)
            auc_all = separation(real[game], boards) if len(boards) >= 10 else float("nan")
            auc_size = separation(same_size, boards) if len(boards) >= 10 else float("nan")
            print(
                f"{game:10s} {name:12s} n={len(boards):4d} gate rejects {rejected:6.1%}; held-out AUC vs real "
                f"{auc_all:.3f} (all sizes), {auc_size:.3f} ({slots[0].size}x{slots[0].size} only); "
                f"{giveaway_rates(boards)}"
            )
        sheets[f"{game}: accepted generated ({len(accepted[:12])})"] = accepted[:12]
        sheets[f"{game}: real, same size"] = random.Random(1).sample(same_size, 12)
    if sheet is not None:
        contact_sheet(sheet, sheets)
        print(f"contact sheet: {sheet}")


def bench_unique(attempts: int) -> None:
    print(f"== unique share per attempt ({attempts} attempts each) ==")
    config = GeneratorConfig()
    for game, size, stars in (("queens", 9, 1), ("starbattle", 10, 2)):
        raw = repaired = 0
        rounds: list[int] = []
        start = time.perf_counter()
        for seed in range(attempts):
            puzzle, layout = raw_board(game, size, stars, seed)
            mended = repair(puzzle, layout, config.repair_rounds(game), random.Random(seed), config.repair_sample)
            raw += mended.status == "unique" and mended.rounds == 0
            if mended.status == "unique":
                repaired += 1
                rounds.append(mended.rounds)
        seconds = (time.perf_counter() - start) / attempts
        print(
            f"{game} {size}x{size} {stars}-star: unique without repair {raw / attempts:.1%}, with repair "
            f"{repaired / attempts:.1%} (median rounds {statistics.median(rounds) if rounds else 0}, "
            f"{seconds * 1000:.0f} ms per attempt)"
        )


def bench_slots(seeds: int, budget: float, slots: Sequence[Slot] = DAILY, seed_list: Sequence[int] = ()) -> list:
    chosen = list(seed_list) or list(range(seeds))
    print(f"== seconds to one accepted board, seeds {chosen[0]}..{chosen[-1]} ({len(chosen)}), budget {budget:g} s ==")
    accepted = []
    day = []
    for slot in slots:
        times, cpu, missed, candidates = [], [], 0, []
        stages: dict[str, list[float]] = {}
        for seed in chosen:
            start, start_cpu = time.perf_counter(), time.process_time()
            generation = generate(slot, seed, budget)
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            candidates.append(generation.counters.candidates)
            for stage, seconds in generation.counters.seconds.items():
                stages.setdefault(stage, []).append(seconds)
            if generation.board is None:
                missed += 1
            else:
                accepted.append(generation.board)
            if slots is not DAILY:
                print(
                    f"    seed {seed}: {times[-1]:.1f} s wall, {cpu[-1]:.1f} s CPU, {candidates[-1]} candidates, "
                    + ("no board" if generation.board is None else generation.board.band),
                    flush=True,
                )
        day.append(statistics.median(times))
        print(
            f"{slot.game:10s} {slot.size}x{slot.size} {slot.stars}-star {slot.band:6s}: "
            f"median {pct(times, 50):6.1f} s, p90 {pct(times, 90):6.1f} s, max {max(times):6.1f} s, "
            f"candidates median {pct(candidates, 50):.0f}, budget hit {missed}/{len(chosen)}"
        )
        # Where the time goes (the stages' own wall seconds) and what it cost in CPU: on a loaded machine the
        # two differ by the load.
        print(
            f"    CPU median {pct(cpu, 50):6.1f} s, p90 {pct(cpu, 90):6.1f} s, max {max(cpu):6.1f} s; candidates p90 "
            f"{pct(candidates, 90):.0f}, max {max(candidates)}; stage medians (wall s): "
            + ", ".join(f"{stage} {pct(seconds, 50):.1f}" for stage, seconds in stages.items())
        )
        total = sum(sum(seconds) for seconds in stages.values()) or 1.0
        print(
            "    stage shares of all seeds' stage seconds: "
            + ", ".join(f"{stage} {sum(seconds) / total:.0%}" for stage, seconds in stages.items())
        )
    if slots is DAILY:
        print(f"a day of seven boards, sum of medians: {sum(day):.1f} s")
    return accepted


def bench_slot(name: str, seeds: int) -> None:
    """One configured slot as the pipeline runs it (its candidate budget and seconds, the config's generator and
    grading settings), seeds 0 .. seeds-1. CPU seconds next to wall seconds: on a loaded machine the wall clock
    mostly measures the neighbours; the candidates tried do not depend on the machine at all."""
    from flows.settings import load_settings

    settings = load_settings()
    pipeline = settings.pipeline
    try:
        chosen = pipeline.named_slot(name)
    except InputError as error:
        raise SystemExit(str(error)) from None
    slot = chosen.as_generator_slot()
    config = settings.generator.model_copy(update={"max_candidates": pipeline.slot_candidates(chosen)})
    budget = pipeline.slot_budget(chosen)
    print(f"== {name}: {seeds} seeds, candidate budget {config.max_candidates}, outer limit {budget:g} s ==")
    wall, cpu, candidates, missed, bands = [], [], [], 0, []
    rejected: Counter[str] = Counter()  # where the candidates went that were not published
    for seed in range(seeds):
        start, start_cpu = time.perf_counter(), time.process_time()
        generation = generate(slot, seed, budget, config, settings.grading)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        candidates.append(generation.counters.candidates)
        rejected.update(generation.counters.rejections)
        if generation.board is None:
            missed += 1
        else:
            bands.append(generation.board.band)
        print(
            f"seed {seed:3d}: {candidates[-1]:4d} candidates, {wall[-1]:6.1f} s wall, {cpu[-1]:6.1f} s CPU", flush=True
        )
    for label, values in (("wall s", wall), ("CPU s", cpu), ("candidates", candidates)):
        print(
            f"{label:10s} median {pct(values, 50):7.1f}  p90 {pct(values, 90):7.1f}  max {max(values):7.1f}  "
            f"sum {sum(values):8.1f}"
        )
    print(f"budget misses {missed}/{seeds}; bands of the boards {dict(Counter(bands))}")
    print("rejected: " + ", ".join(f"{reason} {count}" for reason, count in rejected.most_common() if count))


def parts(grades: list) -> str:
    solved = [g for g in grades if g.solved]
    if not solved:
        return "none solved"
    e = [g.experience for g in solved]
    return (
        f"n={len(solved)} climax median {statistics.median(x.climax for x in e):.2f}, a-ha mean "
        f"{statistics.mean(x.aha for x in e):.1f}, follow-up median "
        f"{statistics.median(x.follow_up for x in e):.2f}, grind median {statistics.median(x.grind for x in e)}, "
        f"fun median {statistics.median(x.fun for x in e):.1f}"
    )


def bench_experience(count: int, accepted: list) -> None:
    print("== experience parts ==")
    hand = list(read_jsonl(str(SHARED / "starbattle/handmade.jsonl")))
    print(f"hand-made star battle          {parts([grade(p) for p in hand])}")
    linkedin = list(read_jsonl(str(SHARED / "queens/linkedin.jsonl")))[:count]
    print(f"linkedin queens (first {count})     {parts([grade(p) for p in linkedin])}")
    config = GeneratorConfig()
    for game, size, stars in (("starbattle", 10, 2), ("queens", 9, 1)):
        grades = []
        for seed in range(count):
            puzzle, layout = raw_board(game, size, stars, seed)
            mended = repair(puzzle, layout, config.repair_rounds(game), random.Random(seed), config.repair_sample)
            if mended.status == "unique":
                grades.append(grade(mended.puzzle))
        print(f"raw generated {game} {size}x{size} {parts(grades)}")
    if accepted:
        print(f"accepted (--slots boards)       {parts([b.grade for b in accepted])}")


def bench_variety(window: int, draws: int) -> None:
    print("== layout variety, 10x10 2-star: pairs sharing > 60% of stars ==")
    consecutive = []
    for rows in enumerate_layouts(10, 2):
        consecutive.append(layout_to_cells(rows))
        if len(consecutive) == window:
            break
    random_draws = [layout_to_cells(rows) for rows in sample_layouts(10, 2, draws, 2026)]
    for name, group in (("first window in enumeration order", consecutive), ("random draws", random_draws)):
        pairs = [(a, b) for i, a in enumerate(group) for b in group[i + 1 :]]
        share = sum(near_duplicate(a, b) for a, b in pairs) / len(pairs)
        print(f"{name:36s} {len(group)} layouts: {share:.2%} of {len(pairs)} pairs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag in ("looks", "unique", "slots", "big", "experience", "variety"):
        parser.add_argument(f"--{flag}", action="store_true")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--attempts", type=int, default=100)
    parser.add_argument("--budget", type=float, default=120.0)
    parser.add_argument("--seed-list", default="", help="--big: these seeds (comma list) instead of 0..seeds-1")
    parser.add_argument("--bands", default="easy,medium,hard,expert", help="--big: these bands only (comma list)")
    parser.add_argument("--slot", default=None, help="one slot of config/starbattle.yaml by name (--seeds of it)")
    parser.add_argument("--sheet", type=Path, default=None, help="--looks: write a contact sheet (HTML) here")
    args = parser.parse_args()
    if args.slot is not None:
        bench_slot(args.slot, args.seeds)
        return
    everything = not any((args.looks, args.unique, args.slots, args.big, args.experience, args.variety))
    if everything or args.looks:
        bench_looks(150, args.seeds, args.budget, args.sheet)
    if everything or args.unique:
        bench_unique(args.attempts)
    if everything or args.variety:
        bench_variety(200, 200)
    accepted = bench_slots(args.seeds, args.budget) if everything or args.slots else []
    if args.big:
        big = [slot for slot in BIG if slot.band in args.bands.split(",")]
        bench_slots(args.seeds, args.budget, big, [int(seed) for seed in args.seed_list.split(",") if seed])
    if everything or args.experience:
        bench_experience(40, accepted)


if __name__ == "__main__":
    main()
