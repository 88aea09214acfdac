"""What a technique finds and what the solver records.

A technique returns a `Deduction` (cells it proves to be stars or empty, the units that justify it, a sentence);
the solver stamps it with the technique's name, code and cost from the table, which makes it a `Step`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..puzzle import Cells


@dataclass(frozen=True)
class Deduction:
    """Cells proved to be stars or empty by one technique application, and why."""

    stars: Cells
    empties: Cells
    units: tuple[str, ...]
    sentence: str


@dataclass(frozen=True)
class Step:
    """One step of a solve path: a deduction stamped with the technique that made it."""

    technique: str
    code: str
    cost: int
    stars: Cells
    empties: Cells
    units: tuple[str, ...]
    sentence: str
