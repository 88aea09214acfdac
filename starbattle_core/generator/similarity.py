"""Similarity of boards (stage 10): two boards whose star layouts share most of their stars feel like reruns."""

from __future__ import annotations

from ..puzzle import Cells


def star_overlap(a: Cells, b: Cells, stars_total: int) -> float:
    """The share of `stars_total` star positions that layouts a and b have in common (0..1)."""
    if stars_total <= 0:
        return 0.0
    return (a & b).bit_count() / stars_total


def near_duplicate(a: Cells, b: Cells, threshold: float = 0.6) -> bool:
    """Whether two star layouts share more than `threshold` of their star positions (measured against the
    larger layout, so boards of different sizes or star counts are never near-duplicates by accident)."""
    return star_overlap(a, b, max(a.bit_count(), b.bit_count())) > threshold
