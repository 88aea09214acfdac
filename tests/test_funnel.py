"""The funnel and its policy as plain functions: the board a seed gives does not depend on the batch size, a stage
run alone in a fresh process gives what the whole chain gives, the clock can end an attempt but never change its
board, and the flow's publishing policy keeps the day's order."""

from __future__ import annotations

import datetime as dt
import pickle
import random
from concurrent.futures import ProcessPoolExecutor

import pytest

from flows.funnel import deal
from flows.policy import FunnelRow, derive_seed, effort, outcome, ready_to_publish, retry, start_work, take_round
from flows.settings import PipelineConfig, SlotConfig
from starbattle_core.generator import GeneratorConfig, Slot, generate
from starbattle_core.generator.funnel import (
    FUNNEL,
    STAGE_FUNCTIONS,
    Batch,
    grow_stage,
    join_batches,
    new_batch,
    run_stages,
    sample_stage,
    split_batch,
)
from starbattle_core.generator.growth import grow_gated
from starbattle_core.generator.run import ACCEPTED, EXHAUSTED, SEARCHING, TIMED_OUT, Search, next_batch, settle
from starbattle_core.grader import GradingConfig

CONFIG = GeneratorConfig(max_candidates=200)
GRADING = GradingConfig()
# Queens 8x8 medium, seed 8, needs 27 candidates: several batches of every size tried below (seed 10 now needs 71,
# and its batch-size test took 43 s of CI).
SLOTS = [(Slot("queens", 8, 1, "medium"), 8), (Slot("starbattle", 6, 1, "easy"), 2), (Slot("queens", 7, 1, "easy"), 0)]


def _board_key(generation: object) -> tuple[object, ...]:
    board = generation.board  # type: ignore[attr-defined]
    assert board is not None
    return (board.puzzle.regions, board.puzzle.solution, board.difficulty, board.fun, board.looks)


@pytest.mark.parametrize(("slot", "seed"), SLOTS, ids=str)
def test_the_board_does_not_depend_on_the_batch_size(slot: Slot, seed: int) -> None:
    one = generate(slot, seed, 300.0, CONFIG, GRADING, batch_size=1)
    assert one.board is not None
    # One at a time, the winner is the last candidate tried and every other one is a counted rejection.
    assert one.counters.candidates == 1 + sum(one.counters.rejections.values())
    for size, growth in ((2, 0.0), (16, 0.0), (4, 0.5)):
        other = generate(slot, seed, 300.0, CONFIG, GRADING, batch_size=size, batch_growth=growth)
        assert _board_key(other) == _board_key(one), (size, growth)
        assert other.counters.candidates >= one.counters.candidates


def _stage_in_fresh_process(stage_index: int, batch: Batch) -> Batch:
    return STAGE_FUNCTIONS[stage_index](pickle.loads(pickle.dumps(batch)), CONFIG, GRADING)


def test_stages_run_one_by_one_in_other_processes_give_the_chain_s_result() -> None:
    """What the pipeline does: each stage in a worker process, the batch pickled in between."""
    slot, seed = SLOTS[0]
    whole = run_stages(new_batch(slot, seed, range(16)), CONFIG, GRADING)
    batch = new_batch(slot, seed, range(16))
    with ProcessPoolExecutor(max_workers=2) as pool:
        for index in range(len(STAGE_FUNCTIONS)):
            batch = pool.submit(_stage_in_fresh_process, index, batch).result()
    assert [c.index for c in batch.candidates] == [c.index for c in whole.candidates]
    assert [c.puzzle.regions for c in batch.candidates] == [c.puzzle.regions for c in whole.candidates]  # type: ignore[union-attr]
    assert [row.stage for row in batch.funnel] == list(FUNNEL)
    # The funnel adds up: what leaves a stage enters the next; what does not was rejected for a counted reason.
    for row, following in zip(batch.funnel, batch.funnel[1:], strict=False):
        assert row.passed == following.entered
    for row in batch.funnel:
        assert row.entered - row.passed == sum(row.rejections.values())
    assert batch.funnel[0].entered == 16 and batch.counters.candidates == 16


def _without_seconds(batch: Batch) -> tuple[object, ...]:
    counters = batch.counters
    rows = [(row.stage, row.entered, row.passed, row.rejections) for row in batch.funnel]
    work = (counters.candidates, counters.rejections, counters.repair_rounds, counters.unique_raw, counters.tuned)
    return (batch.first, batch.size, [c.index for c in batch.candidates], rows, work)


@pytest.mark.parametrize("pieces", [1, 2, 3, 7, 16])
def test_a_batch_split_into_parts_and_joined_again_is_the_whole_batch(pieces: int) -> None:
    """A round's batch may be split over several workers: the joined parts pass the same candidates, with the same
    boards, counters and funnel rows (seconds aside) as the batch run whole."""
    slot, seed = SLOTS[0]
    whole = run_stages(new_batch(slot, seed, range(3, 19)), CONFIG, GRADING)
    parts = split_batch(new_batch(slot, seed, range(3, 19)), pieces)
    assert [part.first for part in parts] == sorted(part.first for part in parts)
    assert sum(part.size for part in parts) == 16 and max(p.size for p in parts) - min(p.size for p in parts) <= 1
    joined = join_batches([run_stages(part, CONFIG, GRADING) for part in reversed(parts)])
    assert _without_seconds(joined) == _without_seconds(whole)
    assert [c.puzzle.regions for c in joined.candidates] == [c.puzzle.regions for c in whole.candidates]  # type: ignore[union-attr]


def test_a_mirror_board_s_own_queens_are_kept_off_the_day_s_boards_as_a_drawn_layout_is() -> None:
    """A mirror board in a half turn or a diagonal grows around queens of its own (symmetry.symmetric_layouts), not
    the layout the sample stage drew and checked: the grow stage checks them against the day's boards instead, and
    a candidate that passes carries them as its layout."""
    slot = Slot("queens", 9, 1, "medium")
    # The looks draw, which keeps a fifth of the boards it meets by chance, is not what this checks.
    config = CONFIG.model_copy(update={"looks_draw": False})
    for index in range(200):
        [candidate] = sample_stage(new_batch(slot, 0, range(index, index + 1)), config, GRADING).candidates
        probe = random.Random()
        probe.setstate(candidate.rng.getstate())
        own = grow_gated(slot, candidate.layout, probe, config).layout
        if own and own != candidate.layout:
            batch = sample_stage(new_batch(slot, 0, range(index, index + 1)), config, GRADING)
            grown = grow_stage(batch, config, GRADING).candidates
            if grown:
                break
    else:
        pytest.fail("no mirror board around queens of its own passed the grow stage in 200 candidates")
    assert grown[0].layout == own and grown[0].puzzle is not None and grown[0].puzzle.solution == own
    avoided = new_batch(slot, 0, range(index, index + 1), avoid=(own,))
    assert sample_stage(avoided, config, GRADING).candidates  # the drawn layout is not near the mirror queens
    rejected = grow_stage(sample_stage(avoided, config, GRADING), config, GRADING)
    assert not rejected.candidates and rejected.funnel[-1].rejections == {"near_duplicate": 1}


def test_a_round_is_dealt_into_balanced_chunks_holding_every_candidate_once() -> None:
    slot, seed = SLOTS[1]
    batches = [
        (0, new_batch(slot, seed, range(1))),
        (1, new_batch(slot, seed, range(8))),
        (2, new_batch(slot, 5, range(9))),
    ]
    for chunks in (1, 2, 3, 5, 40):
        dealt = deal(batches, chunks)
        assert len(dealt) == min(chunks, 18) and all(dealt)
        for owner, batch in batches:
            own = sorted(
                i
                for chunk in dealt
                for index, part in chunk
                if index == owner
                for i in range(part.first, part.first + part.size)
            )
            assert own == list(range(batch.first, batch.first + batch.size))
        # Biggest parts first, each to the lightest chunk: no two chunks differ by more than one part.
        sizes = [sum(part.size for _, part in chunk) for chunk in dealt]
        assert max(sizes) - min(sizes) <= max(part.size for chunk in dealt for _, part in chunk), (chunks, sizes)
        assert max(part.size for chunk in dealt for _, part in chunk) <= max(1, -(-18 // chunks))
        assert deal(batches, chunks) == dealt  # the same round is always dealt the same way


def test_the_clock_ends_an_attempt_but_never_changes_its_board() -> None:
    slot, seed = SLOTS[0]
    unhurried = generate(slot, seed, 300.0, CONFIG, GRADING, batch_size=2)
    for seconds in (0.0, 0.05, 0.3, 1.0):
        hurried = generate(slot, seed, seconds, CONFIG, GRADING, batch_size=2)
        assert hurried.board is None or _board_key(hurried) == _board_key(unhurried)
    search = Search(slot, seed, candidate_budget=10)
    assert next_batch(search, 4, out_of_time=True) is None and search.status == TIMED_OUT


def test_the_candidate_budget_decides_when_an_attempt_gives_up() -> None:
    hopeless = GeneratorConfig(fun_gate=100, looks_gate=100)
    slot = Slot("queens", 6, 1, "easy")
    search = Search(slot, 3, candidate_budget=5)
    sizes = []
    while (batch := next_batch(search, 2)) is not None:
        sizes.append(batch.size)
        settle(search, run_stages(batch, hopeless, GRADING))
    assert sizes == [1, 2, 2] and search.status == EXHAUSTED and search.board is None
    assert search.counters.candidates == 5 == sum(search.counters.rejections.values())


def test_a_long_search_grows_its_batches_by_a_share_of_what_it_tried() -> None:
    """With `growth`, a batch is that share of the candidates tried so far when it is more than the batch size, so a
    long search takes few rounds of the pipeline; the budget still caps the last one."""
    hopeless = GeneratorConfig(fun_gate=100, looks_gate=100)
    search = Search(Slot("queens", 6, 1, "easy"), 3, candidate_budget=60)
    sizes = []
    while (batch := next_batch(search, 4, growth=0.5)) is not None:
        sizes.append(batch.size)
        settle(search, run_stages(batch, hopeless, GRADING))
    assert sizes == [1, 4, 4, 4, 6, 9, 14, 18] and search.status == EXHAUSTED
    assert search.counters.candidates == 60


def _pipeline(**changes: object) -> PipelineConfig:
    slots = [
        SlotConfig(name="a", game="queens", size=6, stars=1, band="easy"),
        SlotConfig(name="b", game="queens", size=6, stars=1, band="easy"),
        SlotConfig(name="c", game="starbattle", size=6, stars=1, band="easy"),
    ]
    return PipelineConfig(slots=slots, **changes)  # type: ignore[arg-type]


def test_boards_are_published_in_slot_order_whatever_finished_first() -> None:
    pipeline = _pipeline()
    day, next_day = dt.date(2026, 11, 29), dt.date(2026, 11, 30)
    works = [
        start_work(pipeline, date, i, slot, 0, ()) for date in (day, next_day) for i, slot in enumerate(pipeline.slots)
    ]
    # The second and third slots of the first day finished; the first is still searching: nothing of that day can
    # be published yet (its board may change what is a near-duplicate). The next day's first slot can.
    works[1].search.status = works[2].search.status = EXHAUSTED
    works[3].search.status = EXHAUSTED
    assert ready_to_publish(works) == [works[3]]
    works[0].search.status = EXHAUSTED
    assert ready_to_publish(works) == [works[0], works[3]]
    works[0].final = "exhausted"
    assert ready_to_publish(works) == [works[1], works[3]]


def test_a_winner_close_to_an_earlier_board_of_the_day_goes_on_with_the_next_seed() -> None:
    pipeline = _pipeline(attempts=2)
    slot = pipeline.slots[0]
    day = dt.date(2026, 11, 29)
    work = start_work(pipeline, day, 0, slot, 0, ())
    while (batch := next_batch(work.search, 4)) is not None:
        done = run_stages(batch, CONFIG, GRADING)
        take_round(work, done)
        settle(work.search, done)
    assert work.search.status == ACCEPTED and work.search.board is not None
    mask = work.search.board.puzzle.solution
    assert mask is not None
    chosen = {(6, 1): [mask]}
    assert outcome(work, chosen, 0.6) == "near_duplicate" and outcome(work, {}, 0.6) == "accepted"
    spent = effort(work, "near_duplicate")
    assert spent.candidates == sum(spent.rejections.values())  # the winner itself counts as a near-duplicate
    assert {row.stage for row in work.funnel} == set(FUNNEL) and all(isinstance(r, FunnelRow) for r in work.funnel)
    again = retry(pipeline, work, "near_duplicate", chosen)
    assert again is work and work.attempt == 1 and work.search.status == SEARCHING
    assert work.search.seed == derive_seed(day, "a", 1) and work.search.avoid == (mask,)
    assert retry(pipeline, work, "exhausted", chosen) is None  # two attempts allowed
    timed = start_work(pipeline, day, 0, slot, 0, ())
    assert retry(pipeline, timed, "timed_out", chosen) is None  # the next run tries the same seed again


def test_a_run_is_dead_when_prefect_says_it_ended_or_its_heartbeats_stopped() -> None:
    from flows.liveness import is_dead

    now = dt.datetime(2026, 12, 1, 3, 0, tzinfo=dt.UTC)
    for ended in ("COMPLETED", "FAILED", "CRASHED", "CANCELLED"):
        assert is_dead(ended, now, now, 30)
    assert not is_dead("RUNNING", now - dt.timedelta(seconds=89), now, 30)
    assert is_dead("RUNNING", now - dt.timedelta(seconds=91), now, 30)
    assert not is_dead("SCHEDULED", now - dt.timedelta(days=3), now, 30)
