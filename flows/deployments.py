"""The pipeline's three deployments, one definition for both ways of running them.

- `starbattle serve` builds them here (`served_deployments`) and serves them from its own process.
- `prefect deploy --all` reads prefect.yaml, which names the same deployments bound to the process work pool
  `starbattle` for `prefect worker start --pool starbattle`; tests/test_deployments.py checks that prefect.yaml
  says what `DEPLOYMENTS` says.

The nightly deployment carries an automation (a Prefect deployment trigger, so `serve` and `deploy` both create it):
when no nightly run has completed for `OVERDUE_HOURS` (the run failed, crashed, or never started because nothing was
serving), it starts a catch-up nightly run; the automation and each time it fires show in the UI's Automations and
Event feed pages. A nightly run fills today and the days ahead, so the catch-up covers the missed date.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from flows.settings import Settings

WORK_POOL = "starbattle"
OVERDUE_HOURS = 26  # a day and the two hours a nightly run may take, so one late run is not yet "missing"


@dataclass(frozen=True)
class DeploymentSpec:
    """A deployment as both `serve` and prefect.yaml spell it."""

    name: str
    flow: str  # the flow's name (deployments are addressed as FLOW/NAME)
    entrypoint: str  # path:function from the project's root
    tags: tuple[str, ...]
    description: str
    parameters: dict[str, Any] = field(default_factory=dict)
    nightly: bool = False  # on the config's cron, with the overdue automation


DEPLOYMENTS = (
    DeploymentSpec(
        name="nightly",
        flow="daily",
        entrypoint="flows/daily.py:daily",
        tags=("nightly",),
        description="Fill today's slots and the days ahead the config asks for.",
        parameters={"kind": "nightly"},
        nightly=True,
    ),
    DeploymentSpec(
        name="backfill",
        flow="backfill",
        entrypoint="flows/daily.py:backfill",
        tags=("backfill",),
        description="Fill every date of a range (parameters start and end, YYYY-MM-DD).",
    ),
    DeploymentSpec(
        name="regrade",
        flow="regrade",
        entrypoint="flows/maintenance.py:regrade",
        tags=("manual",),
        description="Grade stored boards again under the current solver version.",
    ),
)


def overdue_trigger() -> dict[str, Any]:
    """The nightly deployment's automation, in prefect.yaml's words: fire when no run of `daily/nightly` has
    completed within OVERDUE_HOURS, and run the nightly deployment again."""
    return {
        "name": "nightly-overdue",
        "description": f"No nightly run completed in {OVERDUE_HOURS} hours (failed, crashed or missing): run it again.",
        "enabled": True,
        "posture": "Proactive",
        "match": {"prefect.resource.id": "prefect.flow-run.*"},
        "match_related": {"prefect.resource.role": "deployment", "prefect.resource.name": "nightly"},
        "expect": ["prefect.flow-run.Completed"],
        "threshold": 1,
        "within": OVERDUE_HOURS * 3600,
        "parameters": {"kind": "nightly"},
    }


def served_deployments(settings: Settings) -> list[Any]:
    """The three deployments as `serve` runs them, the nightly one on the config's cron and time zone. Imports
    Prefect: call it once the API is chosen."""
    from prefect.events.schemas.deployment_triggers import DeploymentEventTrigger
    from prefect.schedules import Cron

    import flows.daily
    import flows.maintenance

    pipeline = settings.pipeline
    flows_by_name: dict[str, Any] = {
        "daily": flows.daily.daily,
        "backfill": flows.daily.backfill,
        "regrade": flows.maintenance.regrade,
    }
    built = []
    for spec in DEPLOYMENTS:
        options: dict[str, Any] = {
            "name": spec.name,
            "tags": list(spec.tags),
            "description": spec.description,
            "parameters": dict(spec.parameters),
        }
        if spec.nightly:
            options["schedules"] = [Cron(pipeline.nightly_cron, timezone=pipeline.timezone)]
            trigger = overdue_trigger()
            trigger["within"] = dt.timedelta(seconds=trigger["within"])
            options["triggers"] = [DeploymentEventTrigger(**trigger)]
        built.append(flows_by_name[spec.flow].to_deployment(**options))
    return built
