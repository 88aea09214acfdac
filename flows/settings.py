"""The pipeline's configuration: one YAML file with a section per area, validated once on load.

No Prefect import here: the CLI loads settings before it decides whether Prefect is needed at all. Every mistake in
the file is a `ConfigError` whose one line names the file and the key path (`pipeline.slots[2].size: ...`).
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.parse
import zoneinfo
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from starbattle_core.generator import GeneratorConfig, Slot
from starbattle_core.grader import GradingConfig
from starbattle_core.puzzle import MAX_SIZE, InputError, layouts_exist
from starbattle_store.db import masked_url

# The folder holding config/, flows/ and data/: relative paths in the config resolve against it, so the nightly
# deployment finds the same database whatever directory it was started from.
PROJECT = Path(__file__).resolve().parents[1]
DEFAULT_CONFIG = PROJECT / "config" / "starbattle.yaml"
CONFIG_ENV = "STARBATTLE_CONFIG"

Band = Literal["easy", "medium", "hard", "expert"]
QUEENS_BANDS = ("easy", "medium", "hard")


# The schemes a `dask scheduler` listens on over a network (Dask's inproc:// only works inside one process).
DASK_SCHEMES = ("tcp", "tls")


def parse_dask_address(text: str) -> tuple[str, int]:
    """(host, port) of a scheduler address `tcp://HOST:PORT`; a ValueError saying what is wrong otherwise."""
    wrong = f"Dask scheduler address {text!r}: expected tcp://HOST:PORT (or tls://HOST:PORT)"
    parts = urllib.parse.urlsplit(text.strip())
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in DASK_SCHEMES or not parts.hostname or port is None:
        raise ValueError(wrong)
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(wrong)
    return parts.hostname, port


class ConfigError(InputError):
    """A config file that cannot be read or does not validate; the message names the file and the key."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SlotConfig(_Strict):
    """One of the day's boards: what to make, and how long to try."""

    name: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9-]*$")
    game: Literal["starbattle", "queens"]
    size: int = Field(ge=1, le=MAX_SIZE)
    stars: int = Field(ge=1)
    band: Band
    # Overrides the pipeline's `budget_seconds` for this slot (hard slots need longer hunts than easy ones).
    budget_seconds: float | None = Field(default=None, gt=0)
    # Overrides the pipeline's `candidate_budget` for this slot.
    candidate_budget: int | None = Field(default=None, ge=1)

    @field_validator("stars")
    @classmethod
    def _layouts_exist(cls, stars: int, info: Any) -> int:
        size, game = info.data.get("size"), info.data.get("game")
        if game == "queens" and stars != 1:
            raise ValueError(f"queens has one queen per unit, not {stars}")
        if size is not None and not layouts_exist(size, stars):
            raise ValueError(f"no layout exists for a {size}x{size} board with {stars} stars per unit")
        return stars

    @field_validator("band")
    @classmethod
    def _band_fits_game(cls, band: str, info: Any) -> str:
        if info.data.get("game") == "queens" and band not in QUEENS_BANDS:
            raise ValueError(f"queens bands are {', '.join(QUEENS_BANDS)}, not {band}")
        return band

    @model_validator(mode="after")
    def _generator_accepts(self) -> SlotConfig:
        # The generator's own checks (its size range, for one) apply to every slot it will be asked to fill.
        try:
            self.as_generator_slot()
        except InputError as error:
            raise ValueError(str(error)) from None
        return self

    def as_generator_slot(self) -> Slot:
        return Slot(game=self.game, size=self.size, stars=self.stars, band=self.band)


def _default_slots() -> list[SlotConfig]:
    starbattle = [
        SlotConfig(name=f"starbattle-{band}", game="starbattle", size=10, stars=2, band=band)
        for band in ("easy", "medium", "hard", "expert")
    ]
    queens = [SlotConfig(name=f"queens-{band}", game="queens", size=9, stars=1, band=band) for band in QUEENS_BANDS]
    return starbattle + queens


def _default_extra_slots() -> list[SlotConfig]:
    # A site's weekend board: 14x14 3-star in every band, made on request (`starbattle generate --slot NAME`), with
    # budgets of their own (bench/bench_generator.py --slot measures them). Easy hunting tries more candidates: over
    # seeds 0-4 the easy board took up to 857 (medium, hard, expert at most 22, 92 and 5).
    return [
        SlotConfig(
            name=f"starbattle-14-{band}",
            game="starbattle",
            size=14,
            stars=3,
            band=band,
            budget_seconds=600.0,
            candidate_budget=1500 if band == "easy" else 200,
        )
        for band in ("easy", "medium", "hard", "expert")
    ]


class PipelineConfig(_Strict):
    """What runs when: the daily slots, their budgets, where things are stored, the nightly schedule."""

    slots: list[SlotConfig] = Field(default_factory=_default_slots, min_length=1)
    # Slots the nightly run does not fill: same schema, filled on request (`starbattle generate --slot NAME`).
    extra_slots: list[SlotConfig] = Field(default_factory=_default_extra_slots)
    # Seconds of generator time per slot and attempt; a slot that fails is retried with the next attempt's seed.
    # An outer limit: an attempt the clock ends publishes nothing and is retried by the next run with the same seed.
    budget_seconds: float = Field(default=300.0, gt=0)
    # Candidates per slot and attempt: this budget, not the clock, decides when an attempt gives up, so a loaded
    # machine gets the same boards.
    candidate_budget: int = Field(default=300, ge=1)
    # Candidates per stage task: a round of the funnel runs this many of a slot's candidates through each stage.
    batch_size: int = Field(default=8, ge=1, le=10_000)
    # ... or this share of the candidates the slot has tried so far, when that is more: a long search takes a
    # handful of rounds (each about 2 s of task runs), not tens, for at most a third of its candidates tried past
    # the winner (0: always batch_size).
    batch_growth: float = Field(default=0.5, ge=0, le=10)
    attempts: int = Field(default=3, ge=1)
    database_url: str = "sqlite:///data/starbattle.db"
    prefect_home: str = "data/prefect"
    nightly_cron: str = "0 2 * * *"
    timezone: str = "UTC"
    # The nightly run fills today and this many following dates, so a failed night is covered by the next.
    days_ahead: int = Field(default=1, ge=0, le=366)
    # Processes generating boards in parallel (one per core on the reference machine); 1 runs in-process.
    workers: int = Field(default=2, ge=1, le=64)
    # The dashboard (`starbattle ui`) listens on 127.0.0.1 at this port; CLI runs report to it when it is up.
    ui_port: int = Field(default=4200, ge=1024, le=65535)
    # A running Dask scheduler (tcp://HOST:PORT) to generate on instead of this machine's workers (flows/cluster.py).
    dask_address: str | None = None
    # A run Prefect still calls under way is dead once it has given no sign of life (a heartbeat or a state change)
    # for this many seconds, and the next run marks it crashed (flows/liveness.py). None: three heartbeats. Keep it
    # above one heartbeat (PREFECT_FLOWS_HEARTBEAT_FREQUENCY, 30 s under `starbattle`), or live runs look dead.
    stale_run_seconds: float | None = Field(default=None, gt=0)

    @field_validator("dask_address")
    @classmethod
    def _dask_address_shape(cls, address: str | None) -> str | None:
        if address is not None:
            parse_dask_address(address)
        return address

    # The public site: the daily and backfill flows rebuild their dates there (None: they don't; the shipped config
    # says data/site, the folder `starbattle publish` writes to when this is None).
    site_dir: str | None = None

    @field_validator("slots", "extra_slots")
    @classmethod
    def _names_unique(cls, slots: list[SlotConfig]) -> list[SlotConfig]:
        seen: dict[str, int] = {}
        for index, slot in enumerate(slots):
            if slot.name in seen:
                raise ValueError(f"[{index}].name {slot.name!r} repeats the name of [{seen[slot.name]}]")
            seen[slot.name] = index
        return slots

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, zone: str) -> str:
        try:
            zoneinfo.ZoneInfo(zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {zone!r}") from None
        return zone

    @field_validator("nightly_cron")
    @classmethod
    def _cron_shape(cls, cron: str) -> str:
        if len(cron.split()) != 5:
            raise ValueError(f"cron {cron!r} needs five fields: minute hour day month weekday")
        return cron

    @model_validator(mode="after")
    def _extra_names_are_new(self) -> PipelineConfig:
        daily = {slot.name: index for index, slot in enumerate(self.slots)}
        for index, slot in enumerate(self.extra_slots):
            if slot.name in daily:
                raise ValueError(
                    f"extra_slots[{index}].name {slot.name!r} repeats the name of slots[{daily[slot.name]}]"
                )
        return self

    @model_validator(mode="after")
    def _url_scheme(self) -> PipelineConfig:
        if "://" not in self.database_url:
            shown = masked_url(self.database_url)
            raise ValueError(f"database_url {shown!r} is not a URL (sqlite:///path or postgresql://...)")
        return self

    def named_slot(self, name: str) -> SlotConfig:
        """The slot of this name, a daily one or an extra one; an unknown name is an InputError listing them."""
        for slot in (*self.slots, *self.extra_slots):
            if slot.name == name:
                return slot
        known = ", ".join(slot.name for slot in (*self.slots, *self.extra_slots))
        raise InputError(f"--slot {name!r}: no such slot in pipeline.slots or pipeline.extra_slots (have {known})")

    def slot_budget(self, slot: SlotConfig) -> float:
        return slot.budget_seconds if slot.budget_seconds is not None else self.budget_seconds

    def slot_candidates(self, slot: SlotConfig) -> int:
        return slot.candidate_budget if slot.candidate_budget is not None else self.candidate_budget

    def resolved_database_url(self) -> str:
        """The database URL with a relative SQLite path made absolute against the project folder."""
        prefix = "sqlite:///"
        if self.database_url.startswith(prefix):
            path = self.database_url[len(prefix) :]
            if path and path != ":memory:" and not Path(path).is_absolute():
                return prefix + str(PROJECT / path)
        return self.database_url

    def resolved_prefect_home(self) -> Path:
        home = Path(self.prefect_home).expanduser()
        return home if home.is_absolute() else PROJECT / home

    def resolved_site_dir(self) -> Path | None:
        if self.site_dir is None:
            return None
        site = Path(self.site_dir).expanduser()
        return site if site.is_absolute() else PROJECT / site


class WebConfig(_Strict):
    """`starbattle web`: how the server shares out the engine's work (docs/web.md)."""

    # Seconds of engine work one request may take; past them it answers 503 and its worker is replaced.
    time_limit: float = Field(default=10.0, gt=0, le=3600)
    # Worker processes doing the engine's work; the server's own process only answers. One per core.
    workers: int = Field(default=2, ge=1, le=64)
    # Requests one client (by address) may have waiting or running at once; past them it answers 429.
    client_limit: int = Field(default=32, ge=1, le=10_000)


class Settings(_Strict):
    """The whole configuration: how boards are graded, how they are made, what runs when, and how the site serves."""

    grading: GradingConfig = Field(default_factory=GradingConfig)
    generator: GeneratorConfig = Field(default_factory=GeneratorConfig)
    pipeline: PipelineConfig = Field(default_factory=PipelineConfig)
    web: WebConfig = Field(default_factory=WebConfig)

    def config_hash(self) -> str:
        """A short fingerprint of every setting that makes boards, stored with each run so a board can be traced to its
        config (how the web server serves them is left out: it changes no board)."""
        canonical = json.dumps(self.model_dump(mode="json", exclude={"web"}), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _key_path(loc: tuple[Any, ...]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif not str(part).startswith(("function-", "literal", "[key]")):  # [key]: the mapping key just named
            # A key that is not a plain name (a newline, a space) is quoted, so the message stays one line.
            name = str(part) if str(part).isidentifier() else repr(part)
            path += f".{name}" if path else name
    return path or "(top level)"


def _error_line(error: Mapping[str, Any]) -> str:
    kind, message = error["type"], error["msg"]
    if kind == "extra_forbidden":
        message = "unknown key"
    elif kind == "missing":
        message = "missing (required)"
    elif message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    elif kind not in ("value_error",) and "input" in error and not isinstance(error["input"], (dict, list)):
        message = f"{message} (got {error['input']!r})"
    return f"{_key_path(error['loc'])}: {message}"


def validate_settings(raw: Any, where: str = "settings") -> Settings:
    """Settings from a parsed mapping; the first problem becomes a ConfigError naming `where` and the key path."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a mapping of sections (grading, generator, pipeline, web)")
    # A section written as `pipeline:` with nothing under it is an empty section, not a wrong type.
    raw = {key: ({} if value is None else value) for key, value in raw.items()}
    try:
        return Settings.model_validate(raw)
    except RecursionError:
        raise ConfigError(f"{where}: nested too deeply to be a config file") from None
    except ValidationError as error:
        first = error.errors()[0]
        raise ConfigError(f"{where}: {_error_line(first)}") from None


def config_path(path: str | os.PathLike[str] | None = None) -> Path:
    """Which config file is read: the argument, else $STARBATTLE_CONFIG, else config/starbattle.yaml."""
    if path is not None:
        return Path(path)
    env = os.environ.get(CONFIG_ENV)
    return Path(env) if env else DEFAULT_CONFIG


def load_settings(path: str | os.PathLike[str] | None = None) -> Settings:
    """Read and validate the config file. A missing default file means the built-in defaults; a missing file that
    was asked for by name (argument or $STARBATTLE_CONFIG) is a ConfigError."""
    chosen = config_path(path)
    asked = path is not None or bool(os.environ.get(CONFIG_ENV))
    shown = _shown(chosen)
    if not chosen.exists():
        if asked:
            raise ConfigError(f"{shown}: config file not found")
        return Settings()
    try:
        raw = yaml.safe_load(chosen.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or "not valid YAML"
        raise ConfigError(f"{shown}: {problem}{where}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{shown}: cannot read: {error}") from None
    except RecursionError:  # PyYAML composes nested collections recursively
        raise ConfigError(f"{shown}: nested too deeply to be a config file") from None
    return validate_settings(raw, shown)


def _shown(path: Path) -> str:
    """The config path as a user would type it: relative to the project when inside it."""
    try:
        return str(path.resolve().relative_to(PROJECT))
    except ValueError:
        return str(path)
