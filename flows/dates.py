"""Dates as the pipeline's users type them, and the ranges they ask for. No Prefect import."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from starbattle_core.puzzle import InputError

from .settings import Settings

# A longer range is almost certainly a typo in a year (2206 for 2026); split a real one into several runs.
MAX_RANGE_DAYS = 3660


def today(settings: Settings) -> dt.date:
    """Today in the configured time zone: the nightly run's date."""
    return dt.datetime.now(zoneinfo.ZoneInfo(settings.pipeline.timezone)).date()


def parse_date(text: str | dt.date, what: str = "date") -> dt.date:
    """A date from YYYY-MM-DD; anything else is an InputError naming the option."""
    if isinstance(text, dt.date):
        return text
    try:
        return dt.date.fromisoformat(text)
    except (TypeError, ValueError):
        raise InputError(f"{what} {text!r} is not a date: expected YYYY-MM-DD") from None


def date_range(start: dt.date, end: dt.date) -> list[dt.date]:
    """Every date from start to end, both included."""
    if end < start:
        raise InputError(f"date range {start}..{end} is empty: the end comes before the start")
    days = (end - start).days + 1
    if days > MAX_RANGE_DAYS:
        raise InputError(f"date range {start}..{end} has {days} dates: at most {MAX_RANGE_DAYS} per run")
    return [start + dt.timedelta(days=i) for i in range(days)]
