"""What the generator hands back: an accepted board, the counters of a run, and their JSON form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..grader import Grade
from ..puzzle import Puzzle

# Why candidates are rejected, in the order the stages meet them.
REASONS = (
    "near_duplicate",  # its layout shares too many stars with a board already chosen that day
    "growth_failed",  # region growth painted itself into a corner too often
    "no_solution",  # the counter found no solution, or not the intended one
    "ambiguous",  # still more than one solution after the repair rounds
    "ugly",  # looks score under the gate, or not kept by the looks draw
    "stuck",  # the step solver got stuck (it never guesses)
    "wrong_band",  # solved, but not in the slot's band (or too hard for the band's capped solver)
    "low_fun",  # experience score under the gate
)
STAGES = ("layout", "growth", "repair", "looks", "grading", "tuning", "verify")


@dataclass
class Counters:
    """What a run tried and rejected: `candidates` tried, `rejections` by reason, `repair_rounds` (moves made
    over all candidates), how many candidates were unique straight from growth and after repair, and the
    seconds spent in each stage."""

    candidates: int = 0
    rejections: dict[str, int] = field(default_factory=lambda: dict.fromkeys(REASONS, 0))
    repair_rounds: int = 0
    unique_raw: int = 0
    unique_repaired: int = 0
    tuned: int = 0
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))

    def reject(self, reason: str) -> None:
        self.rejections[reason] += 1

    def add(self, more: Counters) -> None:
        """Count `more` in too (a batch's counters into its attempt's, or the parts of a batch together)."""
        self.candidates += more.candidates
        self.repair_rounds += more.repair_rounds
        self.unique_raw += more.unique_raw
        self.unique_repaired += more.unique_repaired
        self.tuned += more.tuned
        for reason, count in more.rejections.items():
            self.rejections[reason] = self.rejections.get(reason, 0) + count
        for stage, seconds in more.seconds.items():
            self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds

    def to_json(self) -> dict[str, Any]:
        return {
            "candidates": self.candidates,
            "rejections": dict(self.rejections),
            "repair_rounds": self.repair_rounds,
            "unique_raw": self.unique_raw,
            "unique_repaired": self.unique_repaired,
            "tuned": self.tuned,
            "seconds": {stage: round(value, 4) for stage, value in self.seconds.items()},
        }


@dataclass(frozen=True)
class Board:
    """An accepted board: the puzzle with its solution, its scores, the solve path they came from."""

    puzzle: Puzzle  # puzzle.solution holds the (unique) solution
    band: str
    difficulty: int
    fun: float
    looks: float
    grade: Grade  # the solve path the difficulty and fun were measured on
    version: str  # the step solver's version
    seed: int
    candidate: int  # the candidate that won: funnel.start_candidate(slot, seed, candidate) draws it again
    repair_rounds: int  # impostor moves this board needed
    tune_rounds: int  # boundary nudges the hill-climb kept


@dataclass(frozen=True)
class Generation:
    """The result of `generate`: the board, or None when the budget ran out first, and the run's counters."""

    board: Board | None
    counters: Counters
    budget_hit: bool = False
