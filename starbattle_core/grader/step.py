"""What a technique finds and what the solver records.

A technique returns a `Deduction` (cells it proves to be stars or empty, the units that justify it, a sentence);
the solver stamps it with the technique's name, code and cost from the table, which makes it a `Step`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..puzzle import Cells


@dataclass(frozen=True)
class Deduction:
    """Cells proved to be stars or empty by one technique application, and why; a hypothetical one also names
    what it assumed (`trials`: the (stars, empty cells) added by each assumption or case it followed)."""

    stars: Cells
    empties: Cells
    units: tuple[str, ...]
    sentence: str
    trials: tuple[tuple[Cells, Cells], ...] = ()


@dataclass(frozen=True)
class Link:
    """One link of a hypothetical step's chain (chains.py): the assumption or case ("ASSUME", "CASE"), a forced
    consequence with the code of the technique that forced it, or the ending ("CONTRADICTION", "END")."""

    code: str
    stars: Cells
    empties: Cells
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
    chain: tuple[Link, ...] = ()  # hypothetical steps: the chain a player can follow
