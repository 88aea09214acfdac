"""The experience (fun) score of a solve path, 0-100: how much the path reads like a designed board's.

The reference learned fun by measuring hand-crafted puzzles against raw generator output; so does this. The score
is a logistic regression per game on a few features of the solve path, fitted by bench/fit_fun.py on designed boards
(published and hand-made Star Battle boards, LinkedIn and community Queens levels) against raw unique generated
candidates of the same sizes; its coefficients live in fun_model.json next to this file, never in code. The
features, all shares or positions so that a 6x6 path and a 10x10 one read on one scale:

- climax: where the hardest step falls (0 = first step, 1 = last; the first of equal hardest steps);
- aha: the share of hard steps that are a-ha moments, after which the easier steps up to the next hard one place
  at least `aha_stars` stars (the door swinging open after the safe is cracked);
- follow_up: the share of steps that are quick (cost at most the game's quick cost: the trivial marks);
- grind: the longest run of consecutive hard steps, as a share of all hard steps (1 = one solid block);
- hard: the share of steps that are hard (not quick and at least `hard_fraction` of the hardest step's cost);
- variety: the entropy, in bits, of the techniques used along the path;
- hypothetical: the share of steps from the hypothetical family (assume, follow, contradict);
- plateau: the longest run of steps that place no star, as a share of the path;
- opening: the share of the path before the first star is placed;
- peak: log2 of the hardest step's cost over the mean step cost (a lone summit or a flat ridge).

A feature outside the range the designed training boards span is clipped to it (a linear model must not
extrapolate). The score is the model's (starbattle_core/logistic.py: 100 * sigmoid(logit - offset), `offset` the
logit at the designed boards' gate percentile recorded in the model file), so the generator's `fun_gate` of 50
keeps what reads at least as designed as that share of designed boards.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..logistic import load_models
from .config import ExperienceConfig
from .step import Step
from .table import techniques_for

FEATURES = (
    "climax",
    "aha",
    "follow_up",
    "grind",
    "hard",
    "variety",
    "hypothetical",
    "plateau",
    "opening",
    "peak",
)
MODEL_FILE = Path(__file__).with_name("fun_model.json")


@dataclass(frozen=True)
class Experience:
    """The experience score, the path measures a reader knows (climax position, a-ha count, follow-up share, longest
    grind in steps), the model's features and each feature's part of the logit (weight times standardised value)."""

    fun: float
    climax: float
    aha: int
    follow_up: float
    grind: int
    features: tuple[tuple[str, float], ...]
    parts: tuple[tuple[str, float], ...]


@lru_cache(maxsize=4)
def _families(game: str) -> dict[str, str]:
    return {t.code: t.family for t in techniques_for(game)}


def _longest_run(flags: Sequence[bool]) -> int:
    best = run = 0
    for flag in flags:
        run = run + 1 if flag else 0
        best = max(best, run)
    return best


def path_features(steps: Sequence[Step], config: ExperienceConfig, quick_cost: int, game: str) -> dict[str, float]:
    """The model's features of a non-empty solve path (see the module docstring)."""
    costs = [s.cost for s in steps]
    count = len(steps)
    top = max(costs)
    quick = [c <= quick_cost for c in costs]
    hard = [c > quick_cost and c >= config.hard_fraction * top for c in costs]
    hard_count = sum(hard)
    placing = [s.stars != 0 for s in steps]
    used = Counter(s.code for s in steps)
    families = _families(game)
    return {
        "climax": costs.index(top) / (count - 1) if count > 1 else 0.0,
        "aha": _aha(steps, hard, config.aha_stars) / hard_count if hard_count else 0.0,
        "follow_up": sum(quick) / count,
        "grind": _longest_run(hard) / hard_count if hard_count else 0.0,
        "hard": hard_count / count,
        "variety": -sum(n / count * math.log2(n / count) for n in used.values()),
        "hypothetical": sum(families.get(s.code) == "hypothetical" for s in steps) / count,
        "plateau": _longest_run([not p for p in placing]) / count,
        "opening": placing.index(True) / count if any(placing) else 1.0,
        "peak": math.log2(top * count / sum(costs)),
    }


def _aha(steps: Sequence[Step], hard: Sequence[bool], aha_stars: int) -> int:
    """Hard steps after which the easier steps up to the next hard one place at least `aha_stars` stars."""
    moments = 0
    for i, is_hard in enumerate(hard):
        if not is_hard:
            continue
        placed = 0
        for step, also_hard in zip(steps[i + 1 :], hard[i + 1 :], strict=True):
            if also_hard:
                break
            placed += step.stars.bit_count()
        moments += placed >= aha_stars
    return moments


def experience(steps: Sequence[Step], config: ExperienceConfig, quick_cost: int, game: str) -> Experience:
    """Score a solve path of `game`; `quick_cost` is the most a quick follow-up step may cost in this game."""
    if not steps:
        return Experience(0.0, 0.0, 0, 0.0, 0, (), ())
    features = path_features(steps, config, quick_cost, game)
    model = load_models(MODEL_FILE)[game]
    costs = [s.cost for s in steps]
    top = max(costs)
    hard = [c > quick_cost and c >= config.hard_fraction * top for c in costs]
    return Experience(
        fun=round(model.score(features), 1),
        climax=round(features["climax"], 3),
        aha=_aha(steps, hard, config.aha_stars),
        follow_up=round(features["follow_up"], 3),
        grind=_longest_run(hard),
        features=tuple((name, round(features[name], 4)) for name in FEATURES),
        parts=tuple((name, round(part, 2)) for name, part in model.parts(features)),
    )
