"""The layout bank: every valid star layout of a size and star count, in enumeration order, with how often each was
used by a published board."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from starbattle_store.db import Layout


def stored_layouts(engine: Engine, size: int, stars: int) -> int:
    with Session(engine) as session:
        return session.exec(
            select(func.count()).select_from(Layout).where(Layout.size == size, Layout.stars == stars)
        ).one()


def store_layouts(engine: Engine, size: int, stars: int, bank: np.ndarray, start: int = 0) -> int:
    """Add layouts (rows of uint32 row masks, in enumeration order from position `start`) to the bank in one
    transaction; positions already stored are skipped, so an interrupted enumeration resumes. Returns rows added."""
    rows = np.ascontiguousarray(bank, dtype="<u4")
    with Session(engine) as session:
        have = set(
            session.exec(
                select(Layout.position).where(
                    Layout.size == size,
                    Layout.stars == stars,
                    col(Layout.position) >= start,
                    col(Layout.position) < start + len(rows),
                )
            ).all()
        )
        fresh = [
            {"size": size, "stars": stars, "position": start + i, "rows": rows[i].tobytes(), "uses": 0}
            for i in range(len(rows))
            if start + i not in have
        ]
        if fresh:
            session.execute(Layout.__table__.insert(), fresh)  # type: ignore[attr-defined]
        session.commit()
    return len(fresh)


def layout_rows_bytes(solution: Iterable[Sequence[int]], size: int) -> bytes:
    """A solution's [row, col] pairs as the bank stores a layout: little-endian uint32 row masks."""
    rows = np.zeros(size, dtype="<u4")
    for r, c in solution:
        rows[r] |= np.uint32(1 << c)
    return rows.tobytes()
