"""The setter (generator/setter.py): its layout words and counts against brute force, its maps, its data file, and
how growth calls it."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from brute_force import all_layouts, brute_force_solutions
from conftest import shared_file
from hypothesis import given, settings
from hypothesis import strategies as st

from starbattle_core.counter import count_solutions
from starbattle_core.formats import read_jsonl
from starbattle_core.generator import GeneratorConfig, growth
from starbattle_core.generator.designs import design_of, orientations, ring_cells, shape_key, shape_text
from starbattle_core.generator.setter import (
    FIGURES,
    FINISH_ALIVE,
    SETTER_FILE,
    SetMap,
    at_corner,
    cells_held,
    compose,
    compose_frame,
    compose_organic,
    corner_images,
    layout_words,
    load_setter_data,
    settle,
)
from starbattle_core.generator.shape import cell_list, grid, region_masks
from starbattle_core.layouts import layout_to_cells, sample_layouts
from starbattle_core.puzzle import Puzzle


def as_ints(words) -> list[int]:
    return [sum(int(word) << (64 * i) for i, word in enumerate(row)) for row in words.T]


@pytest.mark.parametrize("size", [6, 7, 8, 9])
def test_layout_words_are_every_layout_once(size: int) -> None:
    expected = {sum(1 << (r * size + c) for r, c in layout) for layout in all_layouts(size, 1)}
    found = as_ints(layout_words(size))
    assert len(found) == len(set(found)) == len(expected)
    assert set(found) == expected


def test_cells_held_counts_queens_in_a_mask() -> None:
    words = layout_words(9)
    layouts = as_ints(words)
    rng = random.Random(5)
    for _ in range(20):
        mask = rng.getrandbits(81)
        held = cells_held(words, mask)
        assert [int(h) for h in held[:500]] == [(layout & mask).bit_count() for layout in layouts[:500]]


def check_map(owner: list[int], size: int, queens: int, least: int) -> list[int]:
    """The map is whole: one 4-connected region per queen with that queen, each of `least` cells or more; returns
    the region masks."""
    masks = region_masks(owner, size)
    g = grid(size)
    assert sorted((mask & queens).bit_count() for mask in masks) == [1] * size
    assert all(g.connected(mask) and mask.bit_count() >= least for mask in masks)
    return masks


@settings(max_examples=25, deadline=None)
@given(size=st.sampled_from([7, 8]), seed=st.integers(0, 10**6), figure=st.sampled_from(sorted(FIGURES)))
def test_a_composed_map_counts_its_solutions_exactly(size: int, seed: int, figure: str) -> None:
    rng = random.Random(seed)
    queens = layout_to_cells(sample_layouts(size, 1, 1, seed)[0])
    sizes = list(rng.choice(load_setter_data().profiles[size]))[: size - 2]
    made = compose(size, queens, rng, FIGURES[figure], sizes, 3)
    if made is None:
        return
    check_counted(made, size, queens, FIGURES[figure])
    settled = settle(size, made, rng, 3, load_setter_data())
    check_counted(settled, size, queens, FIGURES[figure])
    assert settled.solutions <= made.solutions
    assert (settled.figure, settled.background) == (made.figure, made.background)
    known = load_setter_data().keys
    for queen, mask in settled.regions.items():  # whole shapes: every region drawn again is one of LinkedIn's
        if queen not in (made.figure, made.background) and mask != made.regions[queen]:
            assert shape_key(mask, size) in known


def check_counted(made: SetMap, size: int, queens: int, figure: tuple[tuple[int, int], ...]) -> None:
    """A whole map with the figure placed whole, whose count is the brute-force count of its solutions."""
    owner = made.owner(size)
    masks = check_map(owner, size, queens, 3)
    assert shape_key(made.regions[made.figure], size) == orientations(figure)[0]
    assert all(made.regions[queen] in masks for queen in cell_list(queens))
    solutions = brute_force_solutions(Puzzle(size, 1, tuple(owner), "queens"))
    assert queens in solutions
    assert made.solutions == len(solutions)


def test_a_region_at_the_corner_is_a_known_image_exactly_when_its_shape_is_known() -> None:
    """settle asks whether a region is one of LinkedIn's shapes by moving it to the corner (setter.at_corner) and
    looking it up among every image of those shapes, for designs.shape_key's eight turns: the same answer on every
    region of LinkedIn's levels of 7x7 to 9x9."""
    data = load_setter_data()
    levels = [level for level in read_jsonl(str(shared_file("queens/linkedin.jsonl"))) if level.size <= 9]
    answers = Counter()
    for level in levels:
        shapes = corner_images(data.images, level.size)
        for mask in level.region_masks:
            known = shape_key(mask, level.size) in data.keys
            assert (at_corner(mask, level.size) in shapes) == known, (level.id, mask)
            answers[known] += 1
    assert answers[True] > 1000 and answers[False] > 1000  # both answers asked many times


def test_compose_organic_makes_maps_with_few_solutions() -> None:
    made = 0
    for seed in range(12):
        queens = layout_to_cells(sample_layouts(9, 1, 1, seed)[0])
        owner = compose_organic(9, queens, random.Random(seed), 3)
        if owner is None:
            continue
        made += 1
        masks = check_map(owner, 9, queens, 3)
        assert any(
            mask.bit_count() >= 13 and shape_key(mask, 9) in {orientations(f)[0] for f in FIGURES.values()}
            for mask in masks
        )
        found = count_solutions(Puzzle(9, 1, tuple(owner), "queens"), limit=FINISH_ALIVE + 1)
        assert found.exact and queens in found.solutions and found.count <= FINISH_ALIVE
        if seed < 3:
            assert compose_organic(9, queens, random.Random(seed), 3) == owner  # the seed fixes the map
    assert made >= 10  # eight draws, each ending with few enough solutions three times in five


@settings(max_examples=15, deadline=None)
@given(size=st.sampled_from([7, 8]), seed=st.integers(0, 10**6))
def test_a_set_frame_keeps_the_edge_and_has_few_solutions(size: int, seed: int) -> None:
    rng = random.Random(seed)
    queens = growth.frame_layout(size, layout_to_cells(sample_layouts(size, 1, 1, seed)[0]), rng)
    owner = compose_frame(size, queens, rng, 3)
    if owner is None:
        return
    masks = check_map(owner, size, queens, 3)
    ring = sum(1 << cell for cell in ring_cells(size, 0))
    for mask in masks:  # the edge is the background's but where a queen on it has its shape
        assert not mask & ring or mask & queens & ring
    solutions = brute_force_solutions(Puzzle(size, 1, tuple(owner), "queens"))
    assert queens in solutions and len(solutions) <= FINISH_ALIVE


def test_compose_frame_draws_frames() -> None:
    made: list[str] = []
    for seed in range(12):
        rng = random.Random(seed)
        queens = growth.frame_layout(9, layout_to_cells(sample_layouts(9, 1, 1, seed)[0]), rng)
        owner = compose_frame(9, queens, random.Random(seed), 3)
        if owner is None:
            continue
        check_map(owner, 9, queens, 3)
        found = count_solutions(Puzzle(9, 1, tuple(owner), "queens"), limit=FINISH_ALIVE + 1)
        assert found.exact and queens in found.solutions and found.count <= FINISH_ALIVE
        made.append(design_of(Puzzle(9, 1, tuple(owner), "queens"))[0])
        if seed < 3:
            assert compose_frame(9, queens, random.Random(seed), 3) == owner  # the seed fixes the map
    assert len(made) >= 10
    assert made.count("frame") >= len(made) / 2, made  # 29 of 40 seeds read as frames, 9 as bars (I-shapes)


def test_the_setter_leaves_boards_over_its_largest_to_growth() -> None:
    queens = layout_to_cells(sample_layouts(11, 1, 1, 3)[0])
    assert compose_organic(11, queens, random.Random(3), 3) is None
    assert compose_frame(11, queens, random.Random(3), 3) is None


def test_the_setter_file_is_what_fit_setter_measures() -> None:
    organic = [
        level for level in read_jsonl(str(shared_file("queens/linkedin.jsonl"))) if design_of(level)[0] == "organic"
    ]
    stored = json.loads(SETTER_FILE.read_text(encoding="utf-8"))
    assert stored["levels"] == len(organic)
    shapes: Counter[str] = Counter()
    levels_with: Counter[str] = Counter()
    profiles: dict[str, list[list[int]]] = {}
    for level in organic:
        masks = sorted(level.region_masks, key=int.bit_count)[:-1]  # the largest is the background
        keys = [shape_text(shape_key(mask, level.size)) for mask in masks]
        shapes.update(keys)
        levels_with.update(set(keys))
        profiles.setdefault(str(level.size), []).append([mask.bit_count() for mask in masks])
    kept = {key: count for key, count in shapes.items() if levels_with[key] >= 2}
    assert stored["shapes"] == kept
    assert len(kept) < len(shapes) / 3  # the one-offs are most of the shapes
    assert stored["profiles"] == {size: sorted(rows) for size, rows in profiles.items()}
    data = load_setter_data()
    assert sum(sum(weights) for _, weights in data.shapes.values()) == sum(kept.values())


def test_growth_draws_organic_boards_with_the_setter(monkeypatch: pytest.MonkeyPatch) -> None:
    config = GeneratorConfig(queens_setter_share=1.0)
    set_maps = 0
    calls: list[list[int] | None] = []

    def spy(size: int, queens: int, rng: random.Random, least: int) -> list[int] | None:
        calls.append(compose_organic(size, queens, rng, least))
        return calls[-1]

    monkeypatch.setattr(growth, "compose_organic", spy)
    for seed in range(12):
        queens = layout_to_cells(sample_layouts(9, 1, 1, seed)[0])
        calls.clear()
        grown = growth.grow_queens_regions(9, queens, random.Random(seed), config, "medium", "organic")
        assert len(calls) == 1
        if calls[0] is not None:
            set_maps += 1
            assert list(grown.regions) == calls[0] and grown.layout == queens
    assert set_maps >= 10

    def never(*_: object) -> None:
        raise AssertionError("the setter was called at share 0")

    monkeypatch.setattr(growth, "compose_organic", never)
    queens = layout_to_cells(sample_layouts(9, 1, 1, 0)[0])
    off = GeneratorConfig(queens_setter_share=0.0)
    assert growth.grow_queens_regions(9, queens, random.Random(0), off, "medium", "organic").regions is not None
