"""Point Prefect at the project's own home before Prefect is imported.

Prefect reads PREFECT_HOME and its logging settings when it is first imported, so the CLI calls `prepare_prefect`
first and imports the flow modules after. No Prefect import here.
"""

from __future__ import annotations

import os
from pathlib import Path

from flows.settings import ConfigError, Settings


def prepare_prefect(settings: Settings, *, quiet: bool = True) -> Path:
    """Set Prefect's home (from the config, under data/ by default, so past runs stay in the dashboard), turn off
    its telemetry (the machine has no network: every server start would log an error) and, for CLI runs, its INFO
    lines on the terminal. A PREFECT_HOME already set in the environment wins: a test harness or an operator chose
    it."""
    home = Path(os.environ.get("PREFECT_HOME") or settings.pipeline.resolved_prefect_home())
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"pipeline.prefect_home: cannot create {home}: {error.strerror}") from None
    os.environ["PREFECT_HOME"] = str(home)
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    # A temporary server on a busy 2-core machine can take longer than Prefect's default 20 s to start.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
    # Heartbeats every 30 s (Prefect's least; its default is 180): a later run tells a killed run from a live one after
    # three missed beats (flows/liveness.py), and the dashboard's flow run is marked crashed that much sooner.
    os.environ.setdefault("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "30")
    if quiet:
        # Quiet on the terminal only: the console handler shows warnings and worse, while the runs' INFO logs still
        # reach the API and the dashboard (lowering PREFECT_LOGGING_LEVEL would drop them before they are sent).
        os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "WARNING")
        # And Dask's: a stopped run's local cluster warns of each worker it had to kill, an expected end.
        os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "error")
    return home
