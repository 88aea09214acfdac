"""What a run reports, as plain rows and text: the same tables feed the Prefect artifacts and the CLI.

No Prefect import. Every number is a built-in int or float (a numpy scalar in an artifact table loses the artifact).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from starbattle_core.render import render_board

from .store import ScheduledBoard, SlotStats

# The generator's rejection reasons, in the order a candidate meets them.
REASONS = ("no_solution", "ambiguous", "stuck", "wrong_band", "low_fun", "ugly", "near_duplicate")
GAME_TITLES = {"starbattle": "Star Battle", "queens": "Queens"}


def board_rows(boards: Iterable[ScheduledBoard]) -> list[dict[str, Any]]:
    """One row per published board: date, slot, game, size, band, difficulty, fun, looks, candidates tried."""
    return [
        {
            "date": board.date.isoformat(),
            "slot": board.slot,
            "game": board.game,
            "size": f"{int(board.size)}x{int(board.size)}",
            "stars": int(board.stars),
            "band": board.band,
            "difficulty": int(board.difficulty),
            "fun": round(float(board.fun), 1),
            "looks": round(float(board.looks), 1),
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


def rejection_summary(rejections: dict[str, int]) -> str:
    """Rejections as "ambiguous 12, stuck 3", in the order candidates meet the gates; "none" when there are none."""
    order = [*REASONS, *sorted(set(rejections) - set(REASONS))]
    parts = [f"{reason} {rejections[reason]}" for reason in order if rejections.get(reason)]
    return ", ".join(parts) or "none"


def board_title(board: ScheduledBoard) -> str:
    game = GAME_TITLES.get(board.game, board.game)
    stars = f" {board.stars}-star" if board.game == "starbattle" else ""
    return (
        f"{board.date} {board.slot}: {game} {board.size}x{board.size}{stars}, {board.band}, "
        f"difficulty {int(board.difficulty)}, fun {float(board.fun):.0f}, looks {float(board.looks):.0f}"
    )


def board_picture(board: ScheduledBoard, solved: bool = False, ascii: bool = False) -> str:
    """The board as a grid a person reads at a glance; with `solved`, its stars too."""
    return render_board(board.puzzle(), stars=board.star_mask if solved else 0, ascii=ascii)


def boards_markdown(boards: Iterable[ScheduledBoard]) -> str:
    """The day's boards as pictures, for the run's markdown artifact."""
    parts = [f"### {board_title(board)}\n\n```\n{board_picture(board)}\n```\n" for board in boards]
    return "\n".join(parts) if parts else "No boards published."
