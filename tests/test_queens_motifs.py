"""Queens motifs: open frames and closed rings placed whole by growth, checked on seeded layouts."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from starbattle_core.generator import GeneratorConfig
from starbattle_core.generator.config import MotifMix
from starbattle_core.generator.growth import MOTIFS, RING_INSIDE, grow_queens_regions, place_motif
from starbattle_core.layouts import layout_to_cells, sample_layouts
from starbattle_core.puzzle import is_connected

# Only rings and frames, on every region that can take one, so each growth exercises them.
RINGS_AND_FRAMES = GeneratorConfig(
    queens_motif_share=1.0, queens_motifs=MotifMix(bar=0, ell=0, cross=0, rectangle=0, frame=1.0, ring=1.0)
)


def _ring_mask(size: int, top: int, left: int, cells: tuple[tuple[int, int], ...]) -> int:
    return sum(1 << ((top + r) * size + left + c) for r, c in cells)


def test_every_frame_is_an_outline_with_one_gap_and_the_ring_is_closed() -> None:
    for frame in MOTIFS["frame"]:
        height = 1 + max(r for r, _ in frame)
        width = 1 + max(c for _, c in frame)
        assert len(frame) == 2 * (height + width) - 4 - 1  # the outline less its gap
    [ring] = MOTIFS["ring"]
    assert len(ring) == 12 and not set(ring) & set(RING_INSIDE)


def test_a_ring_is_placed_only_around_exactly_one_other_queen() -> None:
    size = 8
    ring = _ring_mask(size, 2, 2, MOTIFS["ring"][0])
    inside = _ring_mask(size, 2, 2, RING_INSIDE)
    own = 2 * size + 2  # the ring's queen on its top-left corner
    inner = 3 * size + 4
    rng = random.Random(0)
    placed = {place_motif(size, own, 0, random.Random(seed), "ring", (1 << own) | (1 << inner)) for seed in range(40)}
    assert ring in placed  # the one placement with (3, 4) inside and (2, 2) on the ring
    for mask in placed - {0}:
        top, left = divmod(min(c for c in range(size * size) if mask >> c & 1), size)
        walled = _ring_mask(size, top, left, RING_INSIDE)
        assert (walled >> inner) & 1, "every ring placed holds the other queen inside"
    # No other queen inside: no ring.
    assert place_motif(size, own, 0, rng, "ring", 1 << own) == 0
    # Two other queens inside cannot happen (they would touch), but a taken cell inside forbids the ring too.
    assert place_motif(size, own, inside & ~(1 << inner), rng, "ring", (1 << own) | (1 << inner)) != ring


@settings(max_examples=40, deadline=None)
@given(size=st.sampled_from([8, 9, 10]), seed=st.integers(0, 10_000), band=st.sampled_from(["easy", "hard"]))
def test_growth_with_rings_and_frames_gives_one_connected_region_per_queen(size: int, seed: int, band: str) -> None:
    [layout] = sample_layouts(size, 1, 1, seed)
    queens = layout_to_cells(layout)
    growth = grow_queens_regions(size, queens, random.Random(seed), RINGS_AND_FRAMES, band)
    if growth.regions is None:
        return
    regions = growth.regions
    assert len(set(regions)) == size
    for region in set(regions):
        cells = sum(1 << cell for cell, owner in enumerate(regions) if owner == region)
        assert (cells & growth.layout).bit_count() == 1  # a mirror board may draw its own symmetric queens
        assert is_connected(cells, size)
        assert band == "easy" or cells.bit_count() >= 3


def test_growth_draws_rings_and_frames_on_nine_by_nine() -> None:
    seen = {"ring": 0, "frame": 0}
    shapes = {kind: {frozenset(shape) for shape in MOTIFS[kind]} for kind in seen}
    for seed in range(30):
        [layout] = sample_layouts(9, 1, 1, seed)
        growth = grow_queens_regions(9, layout_to_cells(layout), random.Random(seed), RINGS_AND_FRAMES, "hard")
        if growth.regions is None:
            continue
        for region in set(growth.regions):
            cells = [divmod(cell, 9) for cell, owner in enumerate(growth.regions) if owner == region]
            top, left = min(r for r, _ in cells), min(c for _, c in cells)
            shape = frozenset((r - top, c - left) for r, c in cells)
            for kind in seen:
                seen[kind] += shape in shapes[kind]
    assert seen["ring"] and seen["frame"], seen
