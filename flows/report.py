"""What a run reports, as plain rows and text: the same tables feed the Prefect artifacts and the CLI.

No Prefect import. Every number is a built-in int or float (a numpy scalar in an artifact table loses the artifact).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from flows.policy import FunnelRow
from starbattle_core.render import render_board
from starbattle_core.svg import board_svg, svg_data_uri
from starbattle_store import ScheduledBoard, SlotStats

# The generator's rejection reasons, in the order a candidate meets them; `outranked`: passed every stage, but a
# lower-indexed candidate of its batch won.
REASONS = (
    "near_duplicate",
    "growth_failed",
    "no_solution",
    "ambiguous",
    "ugly",
    "stuck",
    "wrong_band",
    "low_fun",
    "outranked",
)
GAME_TITLES = {"starbattle": "Star Battle", "queens": "Queens"}


def board_rows(boards: Iterable[ScheduledBoard]) -> list[dict[str, Any]]:
    """One row per published board: date, slot, game, size, band, difficulty, fun, looks, candidates tried."""
    return [
        {
            "date": board.date.isoformat(),
            "slot": board.slot,
            "game": board.record.game,
            "size": f"{int(board.record.size)}x{int(board.record.size)}",
            "stars": int(board.record.stars),
            "band": board.record.band,
            "difficulty": int(board.record.difficulty),
            "fun": round(float(board.record.fun), 1),
            "looks": round(float(board.record.looks), 1),
            "candidates": int(board.candidates),
        }
        for board in boards
    ]


def rejection_rows(stats: Iterable[SlotStats]) -> list[dict[str, Any]]:
    """One row per slot: attempts, accepted, candidates, then the rejections by reason and seconds spent."""
    stats = list(stats)
    extra = sorted({reason for s in stats for reason in s.rejections} - set(REASONS))
    rows = []
    for s in stats:
        row: dict[str, Any] = {
            "slot": s.slot,
            "attempts": int(s.attempts),
            "accepted": int(s.accepted),
            "candidates": int(s.candidates),
        }
        for reason in (*REASONS, *extra):
            row[reason] = int(s.rejections.get(reason, 0))
        row["repair_rounds"] = int(s.repair_rounds)
        row["seconds"] = round(float(s.seconds), 2)
        rows.append(row)
    return rows


def funnel_rows(funnel: Iterable[FunnelRow], by_round: bool = True) -> list[dict[str, Any]]:
    """Where candidates die: per slot (and, `by_round`, per date, attempt and round) and stage, the candidates in
    and out, the rejections by reason and the seconds spent. Without `by_round` (a backfill's many dates) the
    stages are summed per slot."""
    totals: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in funnel:
        where: dict[str, Any] = (
            {"date": row.date.isoformat(), "slot": row.slot, "attempt": row.attempt, "round": row.round}
            if by_round
            else {"slot": row.slot}
        )
        where["stage"] = row.stage
        key = tuple(where.values())
        total = totals.get(key)
        if total is None:
            total = totals[key] = {"where": where, "entered": 0, "passed": 0, "rejections": {}, "seconds": 0.0}
        total["entered"] += int(row.entered)
        total["passed"] += int(row.passed)
        total["seconds"] += float(row.seconds)
        for reason, count in row.rejections.items():
            total["rejections"][reason] = total["rejections"].get(reason, 0) + int(count)
    return [
        {
            **total["where"],
            "in": total["entered"],
            "out": total["passed"],
            "rejected": rejection_summary(total["rejections"]),
            "seconds": round(total["seconds"], 2),
        }
        for total in totals.values()
    ]


def rejection_summary(rejections: dict[str, int]) -> str:
    """Rejections as "ambiguous 12, stuck 3", in the order candidates meet the gates; "none" when there are none."""
    order = [*REASONS, *sorted(set(rejections) - set(REASONS))]
    parts = [f"{reason} {rejections[reason]}" for reason in order if rejections.get(reason)]
    return ", ".join(parts) or "none"


def board_title(board: ScheduledBoard) -> str:
    record = board.record
    game = GAME_TITLES.get(record.game, record.game)
    stars = f" {record.stars}-star" if record.game == "starbattle" else ""
    return (
        f"{board.date} {board.slot}: {game} {record.size}x{record.size}{stars}, {record.band}, "
        f"difficulty {int(record.difficulty)}, fun {float(record.fun):.0f}, looks {float(record.looks):.0f}"
    )


def board_picture(board: ScheduledBoard, solved: bool = False, ascii: bool = False) -> str:
    """The board as a grid a person reads at a glance; with `solved`, its stars too."""
    return render_board(board.puzzle(), stars=board.star_mask if solved else 0, ascii=ascii)


def board_image(board: ScheduledBoard) -> str:
    """The board drawn by the project's one renderer, as a data URI."""
    return svg_data_uri(board_svg(board.puzzle(), cell=30, title=board_title(board), id_prefix=board.slot))


def boards_markdown(boards: Iterable[ScheduledBoard]) -> str:
    """The day's boards as pictures for the run's markdown artifact: each an SVG (region colours, thick walls, row
    and column labels) inlined as a data URI, which the Prefect UI's markdown shows as an image."""
    parts = [f"### {board_title(board)}\n\n![{board.slot}]({board_image(board)})\n" for board in boards]
    return "\n".join(parts) if parts else "No boards published."
