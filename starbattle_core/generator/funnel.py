"""The generator's stages on a batch of candidates: the funnel a slot's candidates go through.

    sample   draw each candidate's layout; drop near-duplicates of the day's boards
    grow     region growth, then impostor repair (easy slots first try the capped solver on the raw board:
             completing it proves uniqueness), then the looks gate and draw (an ugly board is not worth grading)
    grade    the step solver, capped for the easier bands
    score    band and fun verdicts; a board near its band is sent on to tuning instead of being dropped
    tune     hill-climb the boards sent on; the final band, fun and looks gates; regions lettered in reading order
    verify   the full counter must find exactly the intended solution

Each stage takes a `Batch` and returns the batch of the candidates that passed, with its counters and one more
funnel row (candidates in and out, rejections by reason, seconds). A candidate carries its own random stream from
stage to stage, drawn from (seed, slot, index) alone, so it meets exactly the choices it would meet run alone: what
passes is the same whatever the batch size and whichever process runs a stage. `generate` (run.py) runs the stages
in one process; the pipeline runs each as its own Prefect task on the same `Batch` values.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..counter import count_solutions
from ..grader import Grade, GradingConfig
from ..puzzle import Cells, Puzzle
from .board import Board, Counters
from .config import BANDS, GeneratorConfig, Slot
from .growth import Growth
from .looks import gives_away, looks_draw, looks_score
from .similarity import near_duplicate
from .stages import band_miss, draw_layout, grade_for_slot, grow_regions, judge, repair_for_slot
from .tuning import tune

FUNNEL = ("sample", "grow", "grade", "score", "tune", "verify")


@dataclass(frozen=True)
class Candidate:
    """One candidate between stages: its index, its random stream, the board so far and what it has earned."""

    index: int
    rng: random.Random
    layout: Cells
    puzzle: Puzzle | None = None
    grade: Grade | None = None
    repair_rounds: int = 0
    tune_rounds: int = 0
    to_tune: bool = False
    looks: float = 0.0


@dataclass(frozen=True)
class StageCount:
    """One stage of one batch: candidates in and out, why the others were rejected, seconds spent."""

    stage: str
    entered: int
    passed: int
    rejections: dict[str, int]
    seconds: float


@dataclass(frozen=True)
class Batch:
    """Candidates `first` .. `first + size - 1` of one attempt at a slot, and what the stages so far made of them."""

    slot: Slot
    seed: int
    first: int
    size: int
    avoid: tuple[Cells, ...] = ()
    candidates: tuple[Candidate, ...] = ()
    counters: Counters = field(default_factory=Counters)
    funnel: tuple[StageCount, ...] = ()


def candidate_seed(slot: Slot, seed: int, index: int) -> np.random.SeedSequence:
    """The seed of candidate `index`: a function of the slot, the run's seed and the index only."""
    game = 0 if slot.game == "starbattle" else 1
    return np.random.SeedSequence([seed, game, slot.size, slot.stars, BANDS.index(slot.band), index])


def start_candidate(slot: Slot, seed: int, index: int) -> Candidate:
    """Candidate `index` before any stage: its layout and its random stream, from candidate_seed alone (so a
    published board's candidate, Board.candidate, can be drawn and grown again)."""
    sequence = candidate_seed(slot, seed, index)
    layout = draw_layout(slot, np.random.default_rng(sequence))
    return Candidate(index=index, rng=random.Random(int(sequence.generate_state(2, np.uint64)[1])), layout=layout)


def grow_candidate_again(slot: Slot, seed: int, index: int, config: GeneratorConfig) -> Growth:
    """The map candidate `index` grew, before repair, and the design mode it drew (Board.candidate names the one a
    published board came from): the candidate drawn again and grown with its own stream, as the grow stage did."""
    start = start_candidate(slot, seed, index)
    return grow_regions(slot, start.layout, start.rng, config)


def new_batch(slot: Slot, seed: int, indices: range, avoid: tuple[Cells, ...] = ()) -> Batch:
    return Batch(slot=slot, seed=seed, first=indices.start, size=len(indices), avoid=avoid)


def split_batch(batch: Batch, pieces: int) -> list[Batch]:
    """A new batch as `pieces` batches of consecutive candidates (sizes differing by at most one), for several
    processes to run at once; `join_batches` makes their outcomes one again. Each candidate draws from its own
    stream, so the parts pass exactly the candidates the whole would."""
    assert not batch.funnel, "only a batch no stage has run on is split"
    pieces = max(1, min(pieces, batch.size))
    bounds = [batch.first + batch.size * part // pieces for part in range(pieces + 1)]
    return [replace(batch, first=start, size=stop - start) for start, stop in itertools.pairwise(bounds)]


def join_batches(parts: Sequence[Batch]) -> Batch:
    """The parts of one split batch, after the same stages, as the one batch they were: candidates in index
    order, counters added up, and one funnel row per stage adding up the parts' rows."""
    first = min(parts, key=lambda part: part.first)
    counters = Counters()
    for part in parts:
        counters.add(part.counters)
    rows = []
    for stage_rows in zip(*(part.funnel for part in parts), strict=True):
        rejections: dict[str, int] = {}
        for row in stage_rows:
            for reason, count in row.rejections.items():
                rejections[reason] = rejections.get(reason, 0) + count
        rows.append(
            StageCount(
                stage=stage_rows[0].stage,
                entered=sum(row.entered for row in stage_rows),
                passed=sum(row.passed for row in stage_rows),
                rejections=rejections,
                seconds=sum(row.seconds for row in stage_rows),
            )
        )
    candidates = sorted((candidate for part in parts for candidate in part.candidates), key=lambda c: c.index)
    return replace(
        first,
        size=sum(part.size for part in parts),
        candidates=tuple(candidates),
        counters=counters,
        funnel=tuple(rows),
    )


class _Stage:
    """Counts one stage of a batch: fresh counters (so a stage's counters travel with its result), laps of the
    fine-grained clock, rejections."""

    def __init__(self, name: str, batch: Batch) -> None:
        self.name, self.batch = name, batch
        self.counters = _copy(batch.counters)
        self.before = dict(self.counters.rejections)
        self.began = self.mark = time.perf_counter()

    def lap(self, part: str) -> None:
        now = time.perf_counter()
        self.counters.seconds[part] += now - self.mark
        self.mark = now

    def reject(self, reason: str) -> None:
        self.counters.reject(reason)

    def done(self, passed: list[Candidate]) -> Batch:
        rejected = {
            reason: count - self.before.get(reason, 0)
            for reason, count in self.counters.rejections.items()
            if count - self.before.get(reason, 0)
        }
        row = StageCount(
            stage=self.name,
            entered=len(self.batch.candidates) if self.name != "sample" else self.batch.size,
            passed=len(passed),
            rejections=rejected,
            seconds=time.perf_counter() - self.began,
        )
        return replace(self.batch, candidates=tuple(passed), counters=self.counters, funnel=(*self.batch.funnel, row))


def _copy(counters: Counters) -> Counters:
    return replace(counters, rejections=dict(counters.rejections), seconds=dict(counters.seconds))


# Every stage takes (batch, config, grading), so the pipeline can chain them as one kind of task; some need less.
def sample_stage(batch: Batch, config: GeneratorConfig, grading: GradingConfig) -> Batch:  # noqa: ARG001
    stage = _Stage("sample", batch)
    slot, passed = batch.slot, []
    for index in range(batch.first, batch.first + batch.size):
        stage.counters.candidates += 1
        candidate = start_candidate(slot, batch.seed, index)
        stage.lap("layout")
        if any(near_duplicate(candidate.layout, other, config.similarity_threshold) for other in batch.avoid):
            stage.reject("near_duplicate")
            continue
        passed.append(candidate)
    return stage.done(passed)


def grow_stage(batch: Batch, config: GeneratorConfig, grading: GradingConfig) -> Batch:
    stage = _Stage("grow", batch)
    slot, passed = batch.slot, []
    for candidate in batch.candidates:
        growth = grow_regions(slot, candidate.layout, candidate.rng, config)
        stage.lap("growth")
        if growth.regions is None:
            stage.reject("growth_failed")
            continue
        layout = growth.layout  # a mirror board's own symmetric queens, checked as the sample stage checks layouts
        if layout != candidate.layout and any(
            near_duplicate(layout, other, config.similarity_threshold) for other in batch.avoid
        ):
            stage.reject("near_duplicate")
            continue
        puzzle = Puzzle(slot.size, slot.stars, growth.regions, slot.game, solution=layout)
        hunted = None
        if slot.band == "easy" and config.easy_hunt_raw:
            # Easy hunting: a capped solve that completes the raw board proves it unique; no count, no repair.
            hunted = grade_for_slot(puzzle, slot, config, grading)
            stage.lap("grading")
            if not hunted.solved:
                hunted = None
        rounds = 0
        if hunted is None:
            mended = repair_for_slot(puzzle, slot, candidate.rng, config)
            stage.counters.repair_rounds += mended.rounds
            stage.lap("repair")
            if mended.status != "unique":
                stage.reject(mended.status)
                continue
            puzzle, rounds = mended.puzzle, mended.rounds
            if puzzle.solution is not None and puzzle.solution != layout:
                # Whittled down to another solution than the one it grew around: checked as a drawn layout is.
                layout = puzzle.solution
                if any(near_duplicate(layout, other, config.similarity_threshold) for other in batch.avoid):
                    stage.reject("near_duplicate")
                    continue
        stage.counters.unique_raw += rounds == 0
        stage.counters.unique_repaired += 1
        ugly = looks_score(puzzle) < config.looks_gate or gives_away(puzzle, slot.band, config.allow_giveaways)
        ugly = ugly or (config.looks_draw and not looks_draw(puzzle, candidate.rng))
        stage.lap("looks")
        if ugly:
            stage.reject("ugly")
            continue
        passed.append(replace(candidate, layout=layout, puzzle=puzzle, grade=hunted, repair_rounds=rounds))
    return stage.done(passed)


def grade_stage(batch: Batch, config: GeneratorConfig, grading: GradingConfig) -> Batch:
    stage = _Stage("grade", batch)
    passed = []
    for candidate in batch.candidates:
        assert candidate.puzzle is not None
        result = candidate.grade or grade_for_slot(candidate.puzzle, batch.slot, config, grading)
        stage.lap("grading")
        passed.append(replace(candidate, grade=result))
    return stage.done(passed)


def score_stage(batch: Batch, config: GeneratorConfig, grading: GradingConfig) -> Batch:
    stage = _Stage("score", batch)
    passed = []
    for candidate in batch.candidates:
        assert candidate.grade is not None
        reason = judge(candidate.grade, batch.slot, config, grading)
        if reason is None:
            passed.append(candidate)
        elif reason in ("wrong_band", "low_fun") and _worth_tuning(candidate.grade, batch.slot, config, grading):
            passed.append(replace(candidate, to_tune=True))
        else:
            stage.reject(reason)
    return stage.done(passed)


def tune_stage(batch: Batch, config: GeneratorConfig, grading: GradingConfig) -> Batch:
    stage = _Stage("tune", batch)
    slot, passed = batch.slot, []
    for candidate in batch.candidates:
        assert candidate.puzzle is not None and candidate.grade is not None
        puzzle, result, kept = candidate.puzzle, candidate.grade, 0
        if candidate.to_tune:
            # Bounded by its rounds, never by the clock: a climb cut short would let the machine's speed pick.
            tuned = tune(puzzle, result, slot, candidate.rng, config, grading)
            stage.lap("tuning")
            if tuned.kept:
                stage.counters.tuned += 1
                puzzle, result, kept = tuned.puzzle, tuned.grade, tuned.kept
            reason = judge(result, slot, config, grading)
            if reason is not None:
                stage.reject(reason)
                continue
        looks = looks_score(puzzle)
        stage.lap("looks")
        if looks < config.looks_gate or gives_away(puzzle, slot.band, config.allow_giveaways):
            stage.reject("ugly")
            continue
        named = puzzle.in_reading_order()
        if named is not puzzle:
            # Published with its regions lettered as a real board is, A at the top-left: what its export reads back
            # as, and the colours a player sees (growth numbers regions in the order it grows them). The walkthrough
            # speaks the letters, so the board is graded again; difficulty, band and fun do not depend on them.
            puzzle, result = named, grade_for_slot(named, slot, config, grading)
            stage.lap("grading")
        passed.append(replace(candidate, puzzle=puzzle, grade=result, tune_rounds=kept, to_tune=False, looks=looks))
    return stage.done(passed)


def verify_stage(batch: Batch, config: GeneratorConfig, grading: GradingConfig) -> Batch:  # noqa: ARG001
    """Trust, but verify: the full counter must find exactly the intended solution."""
    stage = _Stage("verify", batch)
    passed = []
    for candidate in batch.candidates:
        assert candidate.puzzle is not None
        check = count_solutions(candidate.puzzle, 2)
        stage.lap("verify")
        if not (check.count == 1 and check.exact and check.solutions[0] == candidate.layout):
            stage.reject("ambiguous" if check.count > 1 else "no_solution")
            continue
        passed.append(candidate)
    return stage.done(passed)


StageFunction = Callable[[Batch, GeneratorConfig, GradingConfig], Batch]
STAGE_FUNCTIONS: tuple[StageFunction, ...] = (
    sample_stage,
    grow_stage,
    grade_stage,
    score_stage,
    tune_stage,
    verify_stage,
)


def run_stages(batch: Batch, config: GeneratorConfig, grading: GradingConfig) -> Batch:
    """Every stage of a batch in this process, in funnel order."""
    for stage in STAGE_FUNCTIONS:
        batch = stage(batch, config, grading)
    return batch


def to_board(candidate: Candidate, seed: int) -> Board:
    """A candidate that passed every stage, as the generator's accepted board."""
    assert candidate.puzzle is not None and candidate.grade is not None
    result = candidate.grade
    return Board(
        puzzle=candidate.puzzle,
        band=result.band,
        difficulty=result.difficulty,
        fun=result.experience.fun,
        looks=candidate.looks,
        grade=result,
        version=result.version,
        seed=seed,
        candidate=candidate.index,
        repair_rounds=candidate.repair_rounds,
        tune_rounds=candidate.tune_rounds,
    )


def _worth_tuning(result: Grade, slot: Slot, config: GeneratorConfig, grading: GradingConfig) -> bool:
    """Tune only boards within reach: solved, at most `tune_reach` from the band, and in the band only when the
    fun score is near the gate (a grade costs up to a second on 10x10; hopeless boards are cheaper to replace)."""
    if not result.solved or not config.tune_rounds(slot.game):
        return False
    miss = band_miss(result, slot, grading)
    if miss == 0:
        return result.experience.fun >= config.fun_gate - config.tune_fun_reach
    return miss <= (config.tune_reach_queens if slot.game == "queens" else config.tune_reach)
