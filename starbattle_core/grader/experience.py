"""The experience (fun) score of a solve path, 0-100, after what sets hand-made boards apart (reference 000).

Four parts, each worth up to its weight in `ExperienceConfig` (35 + 25 + 25 + 15 by default):

- climax: where the hardest step falls, as a fraction of the solve (0 = first step, 1 = last; the first of equal
  hardest steps). Full points at or before `climax_best`, falling linearly to none at `climax_worst`: hand-made
  boards peak about 17% in, raw generated ones about 37%.
- a-ha moments: hard steps after which the easier steps that follow (up to the next hard step) place at least
  `aha_stars` stars (the door swinging open after the safe is cracked). Points grow linearly up to
  `aha_target` moments.
- follow-up share: the fraction of steps that are quick. Full points between `follow_low` and `follow_high`,
  none `follow_tolerance` outside that range.
- grind: the longest run of consecutive hard steps. Full points up to `grind_free`, none at
  `grind_free + grind_span`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .config import ExperienceConfig
from .step import Step


@dataclass(frozen=True)
class Experience:
    """The experience score and its parts: the measured values and the points each earned."""

    fun: float
    climax: float
    aha: int
    follow_up: float
    grind: int
    climax_points: float
    aha_points: float
    follow_up_points: float
    grind_points: float


def experience(steps: Sequence[Step], config: ExperienceConfig, quick_cost: int) -> Experience:
    """Score a solve path; `quick_cost` is the most a quick follow-up step may cost in this game."""
    if not steps:
        return Experience(0.0, 0.0, 0, 0.0, 0, 0.0, 0.0, 0.0, 0.0)
    costs = [s.cost for s in steps]
    top = max(costs)
    climax_index = costs.index(top)
    climax = climax_index / (len(steps) - 1) if len(steps) > 1 else 0.0
    quick = [c <= quick_cost for c in costs]
    hard = [c > quick_cost and c >= config.hard_fraction * top for c in costs]

    aha = 0
    for i, is_hard in enumerate(hard):
        if not is_hard:
            continue
        placed = 0
        for step, also_hard in zip(steps[i + 1 :], hard[i + 1 :], strict=True):
            if also_hard:
                break
            placed += step.stars.bit_count()
        if placed >= config.aha_stars:
            aha += 1

    grind = run = 0
    for is_hard in hard:
        run = run + 1 if is_hard else 0
        grind = max(grind, run)

    follow_up = sum(quick) / len(steps)
    climax_points = config.climax_weight * _clamp(
        (config.climax_worst - climax) / (config.climax_worst - config.climax_best)
    )
    aha_points = config.aha_weight * min(aha, config.aha_target) / config.aha_target
    outside = max(config.follow_low - follow_up, follow_up - config.follow_high, 0.0)
    follow_points = config.follow_weight * _clamp(1 - outside / config.follow_tolerance)
    grind_points = config.grind_weight * _clamp(1 - max(0, grind - config.grind_free) / config.grind_span)
    fun = climax_points + aha_points + follow_points + grind_points
    return Experience(
        round(fun, 1),
        round(climax, 3),
        aha,
        round(follow_up, 3),
        grind,
        round(climax_points, 1),
        round(aha_points, 1),
        round(follow_points, 1),
        round(grind_points, 1),
    )


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, value))
