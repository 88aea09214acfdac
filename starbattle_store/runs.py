"""The `run` rows: one per flow run, from its start to how it ended (completed, failed, crashed)."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from starbattle_store.db import Run


def start_run(
    engine: Engine,
    *,
    name: str,
    kind: str,
    config_hash: str,
    solver_version: str,
    generator_version: str,
    flow_run_id: str | None = None,
) -> int:
    with Session(engine) as session:
        run = Run(
            name=name,
            kind=kind,
            flow_run_id=flow_run_id,
            config_hash=config_hash,
            solver_version=solver_version,
            generator_version=generator_version,
        )
        session.add(run)
        session.commit()
        assert run.id is not None
        return run.id


def finish_run(engine: Engine, run_id: int, status: str) -> None:
    with Session(engine) as session:
        run = session.get(Run, run_id)
        if run is not None:
            run.status = status
            run.ended = dt.datetime.now(dt.UTC)
            session.add(run)
            session.commit()


def running_runs(engine: Engine) -> list[Run]:
    """The runs whose row still says `running`: live ones, and any that died before recording their end."""
    with Session(engine) as session:
        return list(session.exec(select(Run).where(Run.status == "running").order_by(col(Run.id))).all())


def run_counts(engine: Engine) -> dict[str, int]:
    """How many runs ended each way (completed, failed, crashed) or are still running."""
    with Session(engine) as session:
        rows = session.exec(select(Run.status, func.count()).group_by(Run.status)).all()
    return {str(status): int(count) for status, count in sorted(rows)}
