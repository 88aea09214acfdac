"""The engine's one logistic model (starbattle_core/logistic.py) behind both learned scores: looks recomputed by hand
from looks_model.json on real boards and on boards outside the model's range, and both model files read to one
model per game over their module's features."""

from __future__ import annotations

import itertools
import json
import math

import pytest
from conftest import shared_file

from starbattle_core.formats import read_jsonl
from starbattle_core.generator import looks
from starbattle_core.grader import experience
from starbattle_core.logistic import load_models
from starbattle_core.puzzle import Puzzle


def looks_by_hand(puzzle: Puzzle) -> float:
    """The looks score from the model file's numbers: 0 outside the real boards' range, else the sigmoid."""
    fitted = json.loads(looks.MODEL_FILE.read_text(encoding="utf-8"))["games"][puzzle.game]
    features = looks.gate_features(puzzle)
    logit = fitted["intercept"]
    for name, mean, scale, weight, low, high in zip(
        fitted["features"],
        fitted["mean"],
        fitted["scale"],
        fitted["weights"],
        fitted["low"],
        fitted["high"],
        strict=True,
    ):
        if not low <= features[name] <= high:
            return 0.0
        logit += weight * (features[name] - mean) / scale
    return 100.0 / (1.0 + math.exp(-min(max(logit - fitted["offset"], -50.0), 50.0)))


def test_looks_is_the_fitted_model_on_real_boards_and_zero_outside_its_range() -> None:
    archive = read_jsonl(str(shared_file("starbattle/archive.jsonl")))
    linkedin = read_jsonl(str(shared_file("queens/linkedin.jsonl")))
    real = [*itertools.islice(archive, 0, None, 25), *itertools.islice(linkedin, 0, None, 25)]
    stripes = Puzzle(10, 2, tuple(r for r in range(10) for _ in range(10)))
    blocks = Puzzle(10, 2, tuple((r // 2) * 2 + c // 5 for r in range(10) for c in range(10)))
    scores = [looks.looks_score(p) for p in real]
    assert scores == [round(looks_by_hand(p), 1) for p in real]
    # Real boards lie (nearly all: a held-out one may not) inside the range the real training boards span.
    assert len(set(scores)) > len(real) // 2 and sum(score > 0 for score in scores) >= 0.9 * len(real)
    assert looks.looks_score(stripes) == looks.looks_score(blocks) == looks_by_hand(stripes) == 0.0


@pytest.mark.parametrize(
    ("module", "games"), [(looks, {"starbattle", "queens"}), (experience, {"starbattle", "queens"})]
)
def test_each_model_file_reads_to_one_model_per_game_over_its_features(module, games: set[str]) -> None:
    models = load_models(module.MODEL_FILE)
    assert set(models) == games
    for game, model in models.items():
        assert model.features == (looks.GATE_FEATURES[game] if module is looks else module.FEATURES)
        assert len(model.mean) == len(model.scale) == len(model.weights) == len(model.low) == len(model.high)
        assert all(low <= high for low, high in zip(model.low, model.high, strict=True))
        middle = {name: (low + high) / 2 for name, low, high in zip(model.features, model.low, model.high, strict=True)}
        assert model.within(middle) and 0 < model.score(middle) < 100
        assert not model.within({**middle, model.features[0]: model.high[0] + 1})


def test_the_looks_draw_model_has_one_model_per_queens_size_with_enough_real_boards() -> None:
    models = load_models(looks.DRAW_FILE)
    assert set(models) == {looks.draw_key("queens", n, 1) for n in range(7, 12)}
    for model in models.values():
        assert model.features == looks.DRAW_FEATURES and all(scale > 0 for scale in model.scale)
        middle = {name: (low + high) / 2 for name, low, high in zip(model.features, model.low, model.high, strict=True)}
        assert math.isfinite(model.logit(middle))


def test_the_queens_gate_reads_figures_and_the_star_battle_gate_does_not_pay_for_them() -> None:
    linkedin = next(iter(read_jsonl(str(shared_file("queens/linkedin.jsonl")))))
    archive = next(iter(read_jsonl(str(shared_file("starbattle/archive.jsonl")))))
    queens = looks.gate_features(linkedin)
    assert {name: queens[name] for name in looks.FIGURE_FEATURES} == {
        name: looks.draw_features(linkedin)[name] for name in looks.FIGURE_FEATURES
    }
    assert looks.gate_features(archive) == looks.looks_features(archive)
    # The fitted Queens gate weighs figures: a board's score moves with its share of them, the rest held still.
    model = load_models(looks.MODEL_FILE)["queens"]
    more = {**queens, "figures": queens["figures"] + 0.1}
    assert model.logit(more) != model.logit(queens)


def test_the_draw_features_name_a_maps_symmetry_convex_regions_smallest_region_edge_and_figures() -> None:
    # Region 4 is a U (not convex along its rows), region 0 a frame open on the right (not convex along its columns).
    rows = ["00011", "02211", "04441", "04341", "00000"]
    puzzle = Puzzle(5, 1, tuple(int(c) for row in rows for c in row), "queens")
    features = looks.draw_features(puzzle)
    assert {name: features[name] for name in looks.FEATURES} == looks.looks_features(puzzle)
    mirrored = Puzzle(
        5, 1, tuple(int(c) for row in ["00100", "02220", "04440", "04340", "00000"] for c in row), "queens"
    )
    assert looks.draw_features(mirrored)["mirror"] == 1.0 and features["mirror"] < 1.0
    assert features["convex"] == 3 / 5  # regions 0 and 4 are not orthogonally convex
    assert features["smallest"] == 1 / 5  # a single cell against 5 cells a region
    assert features["edge"] == 2 / 5
    # Figures: the domino, the single cell and the U are symmetric; region 1 (a square with a two-cell tail) keeps
    # 4 of its 6 cells under its best mirror, region 0 9 of 11 (top-bottom: all but the two bottom-right cells).
    assert features["figures"] == 3 / 5
    assert features["figure_mean"] == pytest.approx((9 / 11 + 4 / 6 + 3) / 5)
    # Notches (designs.notches): no cell has three sides on one other region there. Region 3 grown from its single
    # cell into an L of unequal arms along the bottom (no figure) leaves its first cell a tooth into the U: one.
    assert features["notches"] == 0.0
    toothed = Puzzle(
        5, 1, tuple(int(c) for row in ["00011", "02211", "04441", "04341", "00333"] for c in row), "queens"
    )
    assert looks.draw_features(toothed)["notches"] == 1 / 5
