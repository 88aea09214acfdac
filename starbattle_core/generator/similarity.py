"""Similarity of boards (stage 10): two boards whose star layouts share most of their stars feel like reruns, and
a board whose region map or star layout was published before, turned, mirrored or relabelled, is a rerun.

`region_map_key` and `layout_key` are canonical keys for that second check: equal exactly when two maps (layouts)
are the same up to the 8 symmetries of the square (and region relabelling), so a store can index them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ..puzzle import Cells, iter_cells, region_name


def star_overlap(a: Cells, b: Cells, stars_total: int) -> float:
    """The share of `stars_total` star positions that layouts a and b have in common (0..1)."""
    if stars_total <= 0:
        return 0.0
    return (a & b).bit_count() / stars_total


def near_duplicate(a: Cells, b: Cells, threshold: float = 0.6) -> bool:
    """Whether two star layouts share more than `threshold` of their star positions (measured against the
    larger layout, so boards of different sizes or star counts are never near-duplicates by accident)."""
    return star_overlap(a, b, max(a.bit_count(), b.bit_count())) > threshold


@lru_cache(maxsize=32)
def square_images(size: int) -> tuple[tuple[int, ...], ...]:
    """For each of the square's 8 symmetries, the cell each cell maps to (row-major indices)."""
    maps = []
    for turns in range(4):
        for flip in (False, True):
            image = []
            for cell in range(size * size):
                r, c = divmod(cell, size)
                if flip:
                    c = size - 1 - c
                for _ in range(turns):
                    r, c = c, size - 1 - r
                image.append(r * size + c)
            maps.append(tuple(image))
    return tuple(maps)


def region_map_key(regions: Sequence[int], size: int) -> str:
    """A key equal for two region maps exactly when one is the other turned, mirrored and/or relabelled.

    Each of the 8 images is relabelled in reading order (first region met is A, ...) and written out as
    letters; the key is the least of the 8 strings, prefixed by the size so boards of different sizes differ."""
    best = ""
    for image in square_images(size):
        moved = [0] * (size * size)
        for cell, target in enumerate(image):
            moved[target] = regions[cell]
        names: dict[int, str] = {}
        text = "".join(names.setdefault(region, region_name(len(names))) for region in moved)
        best = text if not best or text < best else best
    return f"{size}:{best}"


def layout_key(layout: Cells, size: int) -> str:
    """A key equal for two star layouts exactly when one is the other turned and/or mirrored: the least of the
    8 images' masks, in hexadecimal, prefixed by the size."""
    best = min(sum(1 << image[cell] for cell in iter_cells(layout)) for image in square_images(size))
    return f"{size}:{best:x}"
