"""The run dashboards: Prefect artifacts built from the report tables."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from prefect.artifacts import create_markdown_artifact, create_table_artifact

from flows.policy import FunnelRow
from flows.report import board_rows, boards_markdown, funnel_rows, rejection_rows
from starbattle_store import ScheduledBoard, SlotStats


def _span(dates: Sequence[dt.date]) -> str:
    return dates[0].isoformat() if len(dates) == 1 else f"{dates[0]}..{dates[-1]}"


def publish_day(
    kind: str,
    dates: Sequence[dt.date],
    boards: list[ScheduledBoard],
    stats: list[SlotStats],
    funnel: Sequence[FunnelRow] = (),
    pictures: bool = True,
) -> None:
    """The artifacts of a run that filled dates: the boards, the rejection counters and (for a daily run; a long
    backfill would make an unreadable page) the boards as pictures. Keys are per flow (`daily-boards`, ...) so the
    UI shows each artifact's history across runs."""
    span = _span(dates)
    create_table_artifact(
        key=f"{kind}-boards",
        table=board_rows(boards),
        description=f"Boards published for {span}: band, difficulty, fun, looks, candidates tried.",
    )
    create_table_artifact(
        key=f"{kind}-rejections",
        table=rejection_rows(stats),
        description=f"Rejection counters of this run by slot and reason ({span}).",
    )
    create_table_artifact(
        key=f"{kind}-funnel",
        table=funnel_rows(funnel, by_round=kind == "daily"),
        description=f"Where candidates die ({span}): per slot"
        + (", attempt and round" if kind == "daily" else "")
        + " and stage, candidates in and out, rejections by reason, seconds.",
    )
    if not pictures:
        return
    create_markdown_artifact(
        key=f"{kind}-pictures",
        markdown=f"# Boards for {span}\n\n{boards_markdown(boards)}",
        description=f"The boards of {span} as pictures.",
    )
