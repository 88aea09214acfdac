"""Fitting the engine's logistic models (starbattle_core/logistic.py), shared by fit_looks.py and fit_fun.py (and
bench_generator.py's separation check): a weighted L2 logistic regression on standardised features, the held-out
AUC, and a fitted model as the model files keep it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def fit_logistic(x: np.ndarray, y: np.ndarray, penalty: float) -> tuple[np.ndarray, float]:
    """Weighted L2 logistic regression by Newton steps; each class carries half the total weight."""
    weight = np.where(y == 1, 0.5 / y.sum(), 0.5 / (1 - y).sum()) * len(y)
    design = np.hstack([x, np.ones((len(x), 1))])
    beta = np.zeros(design.shape[1])
    ridge = penalty * np.eye(design.shape[1])
    ridge[-1, -1] = 0.0  # the intercept is not shrunk
    for _ in range(50):
        p = 1 / (1 + np.exp(-design @ beta))
        gradient = design.T @ (weight * (p - y)) + ridge @ beta
        hessian = (design * (weight * p * (1 - p))[:, None]).T @ design + ridge
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return beta[:-1], float(beta[-1])


def auc(positive: np.ndarray, negative: np.ndarray) -> float:
    """The chance that a random positive scores above a random negative (ties count half)."""
    greater = (positive[:, None] > negative[None, :]).mean()
    ties = (positive[:, None] == negative[None, :]).mean()
    return float(greater + 0.5 * ties)


@dataclass(frozen=True)
class Standardised:
    """A logistic regression fitted on features standardised by the training rows' mean and spread."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    intercept: float

    def logits(self, x: np.ndarray) -> np.ndarray:
        return ((x - self.mean) / self.scale) @ self.weights + self.intercept


def fit_standardised(train: np.ndarray, labels: np.ndarray, penalty: float) -> Standardised:
    """Standardise each feature over the training rows (labels 1 and 0), then fit."""
    mean = train.mean(axis=0)
    spread = train.std(axis=0)
    # A feature constant over the training rows (no 10x10 2-star board has a region of 2 cells) gets scale 1, not a
    # near-zero one that the model file's 6 decimals would round to 0.
    scale = np.where(spread > 1e-6, spread, 1.0)
    weights, intercept = fit_logistic((train - mean) / scale, labels, penalty)
    return Standardised(mean, scale, weights, intercept)


def model_entry(
    features: Sequence[str], fit: Standardised, offset: float, low: np.ndarray, high: np.ndarray
) -> dict[str, object]:
    """A game's entry in a model file, as starbattle_core/logistic.py reads it: 6 decimals, the feature ranges
    widened outwards so that no training board falls outside them."""
    return {
        "features": list(features),
        "mean": [round(float(v), 6) for v in fit.mean],
        "scale": [round(float(v), 6) for v in fit.scale],
        "weights": [round(float(v), 6) for v in fit.weights],
        "intercept": round(fit.intercept, 6),
        "offset": round(offset, 6),
        "low": [math.floor(float(v) * 1e6) / 1e6 for v in low],
        "high": [math.ceil(float(v) * 1e6) / 1e6 for v in high],
    }
