"""The pipeline's configuration: defaults, the shipped file, and one clear error per kind of mistake."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import run_starbattle

from flows.settings import ConfigError, Settings, load_settings, validate_settings
from starbattle_core.grader import BandCutoffs, GradingConfig
from starbattle_core.puzzle import InputError, layouts_exist

SLOT = {"name": "s", "game": "starbattle", "size": 10, "stars": 2, "band": "easy"}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "starbattle.yaml"
    path.write_text(text)
    return path


def test_defaults_are_the_seven_daily_slots() -> None:
    slots = Settings().pipeline.slots
    assert [(s.game, s.size, s.stars, s.band) for s in slots[:4]] == [
        ("starbattle", 10, 2, band) for band in ("easy", "medium", "hard", "expert")
    ]
    assert [(s.game, s.stars, s.band) for s in slots[4:]] == [("queens", 1, b) for b in ("easy", "medium", "hard")]
    assert len({s.name for s in slots}) == 7
    assert all(layouts_exist(s.size, s.stars) for s in slots)


def test_shipped_config_loads_and_matches_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STARBATTLE_CONFIG", raising=False)
    settings = load_settings()
    assert settings.pipeline.slots == Settings().pipeline.slots
    assert settings.pipeline.resolved_database_url().startswith("sqlite:////")
    assert settings.pipeline.resolved_database_url().endswith("/data/starbattle.db")
    assert settings.pipeline.resolved_prefect_home().parts[-2:] == ("data", "prefect")


def test_environment_variable_chooses_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "pipeline:\n  budget_seconds: 5\n  days_ahead: 0\n")
    monkeypatch.setenv("STARBATTLE_CONFIG", str(path))
    settings = load_settings()
    assert settings.pipeline.budget_seconds == 5.0 and settings.pipeline.days_ahead == 0
    assert len(settings.pipeline.slots) == 7  # unspecified keys keep their defaults


def test_empty_sections_are_defaults(tmp_path: Path) -> None:
    assert load_settings(write(tmp_path, "grading:\ngenerator: {}\npipeline:\n")) == Settings()


def test_config_hash_follows_the_settings() -> None:
    same = Settings().config_hash()
    assert Settings().config_hash() == same
    assert validate_settings({"pipeline": {"budget_seconds": 7}}).config_hash() != same
    # How the web server serves boards makes no board: it leaves the fingerprint alone.
    assert validate_settings({"web": {"workers": 4}}).config_hash() == same


@pytest.mark.parametrize(
    ("web", "problem"),
    [
        ({"time_limit": 0}, "web.time_limit: Input should be greater than 0"),
        ({"workers": 0}, "web.workers: Input should be greater than or equal to 1"),
        ({"client_limit": "many"}, "web.client_limit: Input should be a valid integer"),
        ({"port": 80}, "web.port: unknown key"),
    ],
)
def test_the_web_section_is_validated(web: dict, problem: str) -> None:
    assert validate_settings({"web": {"time_limit": 2.5}}).web.time_limit == 2.5
    with pytest.raises(ConfigError) as refused:
        validate_settings({"web": web})
    assert str(refused.value).startswith("settings: " + problem)


@pytest.mark.parametrize(
    ("pipeline", "expected"),
    [
        ({"slotz": []}, "pipeline.slotz: unknown key"),
        ({"budget_seconds": "fast"}, "pipeline.budget_seconds: Input should be a valid number"),
        ({"slots": [{**SLOT, "size": "ten"}]}, "pipeline.slots[0].size: Input should be a valid integer"),
        (
            {"slots": [SLOT, {k: v for k, v in SLOT.items() if k != "band"} | {"name": "t"}]},
            "pipeline.slots[1].band: missing",
        ),
        ({"slots": [SLOT, {**SLOT, "band": "hard"}]}, "pipeline.slots: [1].name 's' repeats the name of [0]"),
        ({"slots": [{**SLOT, "size": 7}]}, "pipeline.slots[0].stars: no layout exists for a 7x7 board with 2"),
        ({"slots": [{**SLOT, "game": "queens", "stars": 2}]}, "pipeline.slots[0].stars: queens has one queen"),
        ({"slots": [{**SLOT, "game": "queens", "stars": 1, "band": "expert"}]}, "pipeline.slots[0].band: queens"),
        ({"slots": [{**SLOT, "band": "insane"}]}, "pipeline.slots[0].band: Input should be"),
        ({"slots": [{**SLOT, "colour": "red"}]}, "pipeline.slots[0].colour: unknown key"),
        ({"timezone": "Mars/Olympus"}, "pipeline.timezone: unknown time zone 'Mars/Olympus'"),
        ({"nightly_cron": "every night"}, "pipeline.nightly_cron: cron 'every night' needs five fields"),
        ({"database_url": "data/x.db"}, "pipeline: database_url 'data/x.db' is not a URL"),
        ({"slots": []}, "pipeline.slots: List should have at least 1 item"),
        ({"slots": [{**SLOT, "size": 1, "stars": 1}]}, "pipeline.slots[0]: slot size 1 out of range 4.."),
        ({"budget_seconds": 0}, "pipeline.budget_seconds: Input should be greater than 0"),
    ],
)
def test_each_mistake_is_one_line_naming_the_key(tmp_path: Path, pipeline: dict, expected: str) -> None:
    check_mistake(tmp_path, {"pipeline": pipeline}, expected)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"grading": {"easy_below": "low"}}, "grading.easy_below: Input should be a valid integer"),
        ({"grading": {"medium_below": 100}}, "grading: band cutoffs must rise"),
        ({"grading": {"experience": {"bogus": 1}}}, "grading.experience.bogus: unknown key"),
        (
            {"grading": {"size_bands": {14: {"easy_below": 500, "medium_below": 400, "hard_below": 900}}}},
            "grading.size_bands[14]: band cutoffs must rise",
        ),
        ({"grading": {"size_bands": {14: {"easy_below": 500}}}}, "grading.size_bands[14].medium_below: missing"),
        (
            {"grading": {"size_bands": {3: {"easy_below": 1, "medium_below": 2, "hard_below": 3}}}},
            "grading.size_bands[3]: Input should be greater than or equal to 4 (got 3)",
        ),
        (
            {"grading": {"size_bands": {14: {"easy_below": 0, "medium_below": 2, "hard_below": 3}}}},
            "grading.size_bands[14].easy_below: Input should be greater than or equal to 1 (got 0)",
        ),
        ({"generator": {"fun_gate": 120}}, "generator.fun_gate: Input should be less than or equal to 100"),
        ({"generator": {"repair_rounds": 15}}, "generator.repair_rounds: unknown key"),
        (
            {"generator": {"shaping_spread_offset": {"10x10 2star": 0.1}}},
            "generator: shaping_spread_offset: kind '10x10 2star' is not like '10x10 2-star'",
        ),
        (
            {"generator": {"reshaping_spread_offset": {"ten by ten": 0.1}}},
            "generator: reshaping_spread_offset: kind 'ten by ten' is not like '10x10 2-star'",
        ),
    ],
)
def test_each_engine_section_mistake_names_its_key(tmp_path: Path, raw: dict, expected: str) -> None:
    check_mistake(tmp_path, raw, expected)


def test_size_bands_replace_the_cutoffs_of_their_size_only(tmp_path: Path) -> None:
    """A size in `size_bands` grades by its own cutoffs; every other size falls back to the default ones, and a
    table written in the file replaces the built-in one whole."""
    default = GradingConfig()
    assert (
        default.cutoffs(10)
        == default.cutoffs(9)
        == default.cutoffs()
        == BandCutoffs(easy_below=default.easy_below, medium_below=default.medium_below, hard_below=default.hard_below)
    )
    assert default.cutoffs(14) == default.size_bands[14] != default.cutoffs()
    table = "grading:\n  size_bands:\n    12: {easy_below: 300, medium_below: 2000, hard_below: 2500}\n"
    grading = load_settings(write(tmp_path, table)).grading
    assert grading.cutoffs(12) == BandCutoffs(easy_below=300, medium_below=2000, hard_below=2500)
    assert grading.cutoffs(14) == grading.cutoffs(10) == default.cutoffs()
    assert [grading.band(d, 12) for d in (299, 300, 1999, 2000, 2499, 2500)] == [
        "easy", "medium", "medium", "hard", "hard", "expert"
    ]  # fmt: skip
    assert [grading.band(d, 10) for d in (299, 1999)] == ["medium", "expert"]


def test_a_bad_size_band_stops_the_cli_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write(tmp_path, "grading:\n  size_bands:\n    14: {easy_below: 500, medium_below: 400, hard_below: 900}\n")
    monkeypatch.setenv("STARBATTLE_CONFIG", str(config))
    board = tmp_path / "board.json"
    board.write_text('{"size": 5, "stars": 1, "regions": ["AAABC", "AAABC", "AADBC", "AEDBC", "AEEBB"]}')
    status, out, err = run_starbattle(capsys, "grade", str(board))
    assert status == 2 and out == ""
    assert err == (
        f"error: {config}: grading.size_bands[14]: band cutoffs must rise: easy_below < medium_below < hard_below\n"
    )


def check_mistake(tmp_path: Path, raw: dict, expected: str) -> None:
    path = write(tmp_path, yaml.safe_dump(raw))
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    message = str(caught.value)
    assert isinstance(caught.value, InputError)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    assert expected in message


def test_unknown_section_and_bad_yaml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r": schedule: unknown key$"):
        load_settings(write(tmp_path, "schedule: {}\n"))
    with pytest.raises(ConfigError, match=r"at line 3, column 1$"):
        load_settings(write(tmp_path, "pipeline:\n  slots: [\n"))
    with pytest.raises(ConfigError, match="expected a mapping of sections"):
        load_settings(write(tmp_path, "- just\n- a list\n"))
    with pytest.raises(ConfigError, match="config file not found"):
        load_settings(tmp_path / "absent.yaml")


def test_extra_slots_are_named_but_not_in_the_day(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STARBATTLE_CONFIG", raising=False)
    shipped = load_settings().pipeline
    assert shipped.extra_slots == Settings().pipeline.extra_slots
    assert [(s.size, s.stars, s.band) for s in shipped.extra_slots] == [
        (14, 3, band) for band in ("easy", "medium", "hard", "expert")
    ]
    assert not {s.name for s in shipped.slots} & {s.name for s in shipped.extra_slots}
    assert shipped.named_slot("starbattle-14-hard").band == "hard"
    assert shipped.named_slot("queens-easy").size == 9
    with pytest.raises(InputError, match="no such slot"):
        shipped.named_slot("starbattle-15-hard")


@pytest.mark.parametrize(
    ("pipeline", "expected"),
    [
        ({"extra_slots": [SLOT, {**SLOT, "band": "hard"}]}, "pipeline.extra_slots: [1].name 's' repeats the name"),
        ({"slots": [SLOT], "extra_slots": [{**SLOT, "band": "hard"}]}, "extra_slots[0].name 's' repeats the name of"),
        ({"extra_slots": [{**SLOT, "size": 7}]}, "pipeline.extra_slots[0].stars: no layout exists for a 7x7 board"),
        ({"extra_slots": [{**SLOT, "colour": "red"}]}, "pipeline.extra_slots[0].colour: unknown key"),
    ],
)
def test_extra_slot_mistakes_name_their_key(tmp_path: Path, pipeline: dict, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(write(tmp_path, yaml.safe_dump({"pipeline": pipeline})))
    assert expected in str(caught.value) and "\n" not in str(caught.value)
