"""A fitted logistic model, as both learned scores use one: fun (grader/experience.py, fun_model.json) and looks
(generator/looks.py, looks_model.json), each fitted per game by its script in bench/ (bench/logistic_fit.py).

A model standardises each feature by (value - mean) / scale, weighs it and adds the intercept; the score is
100 * sigmoid(logit - offset), where `offset` is the logit at the gate percentile of the boards it was fitted to tell
apart, so a score of 50 is that percentile. A linear model must not extrapolate: `low` and `high` are the least and
most each feature reaches on those boards, and a feature outside them is clipped (fun) or makes the board score 0
(looks: `within`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path


@dataclass(frozen=True)
class LogisticModel:
    """One game's fitted logistic regression, as its model file records it."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float
    offset: float  # the logit at the fitted boards' gate percentile: subtracted so that percentile scores 50
    low: tuple[float, ...]
    high: tuple[float, ...]

    def within(self, features: dict[str, float]) -> bool:
        """Whether every feature lies in the range the fitted boards span."""
        ranges = zip(self.features, self.low, self.high, strict=True)
        return all(low <= features[name] <= high for name, low, high in ranges)

    def parts(self, features: dict[str, float]) -> tuple[tuple[str, float], ...]:
        """Each feature's part of the logit: its weight times its value clipped to [low, high] and standardised."""
        rows = zip(self.features, self.mean, self.scale, self.weights, self.low, self.high, strict=True)
        return tuple((name, w * (min(max(features[name], lo), hi) - m) / s) for name, m, s, w, lo, hi in rows)

    def logit(self, features: dict[str, float]) -> float:
        """The intercept plus every feature's part."""
        return self.intercept + sum(part for _, part in self.parts(features))

    def score(self, features: dict[str, float]) -> float:
        """0-100, unrounded."""
        value = min(max(self.logit(features) - self.offset, -50.0), 50.0)
        return 100.0 / (1.0 + math.exp(-value))


@lru_cache(maxsize=8)
def load_models(path: Path) -> dict[str, LogisticModel]:
    """The fitted models by game, read from a model file (`{"games": {game: entry}}`, as bench/logistic_fit.py
    writes each entry)."""
    with open(path, encoding="utf-8") as handle:
        fitted = json.load(handle)
    return {
        game: LogisticModel(
            tuple(entry["features"]),
            tuple(entry["mean"]),
            tuple(entry["scale"]),
            tuple(entry["weights"]),
            float(entry["intercept"]),
            float(entry["offset"]),
            tuple(entry["low"]),
            tuple(entry["high"]),
        )
        for game, entry in fitted["games"].items()
    }
