"""The pipeline's three deployments, defined once, in prefect.yaml, for both ways of running them.

- `prefect deploy --all` reads prefect.yaml itself: the deployments bound to the process work pool `starbattle`,
  for `prefect worker start --pool starbattle`.
- `starbattle serve` builds the same deployments from the same file (`served_deployments`) and serves them from
  its own process, the nightly one on the config's cron and time zone instead of the file's defaults.

The nightly deployment carries an automation (a Prefect deployment trigger, so both ways create it): when no nightly
run has completed for 26 hours (the run failed, crashed, or never started because nothing was serving), it starts
a catch-up nightly run; the automation and each time it fires show in the UI's Automations and Event feed pages. A
nightly run fills today and the days ahead, so the catch-up covers the missed date.
"""

from __future__ import annotations

import importlib
from typing import Any

import yaml

from flows.settings import PROJECT, Settings

PREFECT_YAML = PROJECT / "prefect.yaml"


def deployment_specs() -> list[dict[str, Any]]:
    """prefect.yaml's deployments, as written."""
    return list(yaml.safe_load(PREFECT_YAML.read_text(encoding="utf-8"))["deployments"])


def served_deployments(settings: Settings) -> list[Any]:
    """prefect.yaml's deployments as `serve` runs them, a schedule on the config's cron and time zone. Imports
    Prefect: call it once the API is chosen."""
    from prefect.events.schemas.deployment_triggers import DeploymentEventTrigger
    from prefect.schedules import Cron

    pipeline = settings.pipeline
    built = []
    for spec in deployment_specs():
        path, function = spec["entrypoint"].split(":")
        flow = getattr(importlib.import_module(path.removesuffix(".py").replace("/", ".")), function)
        options: dict[str, Any] = {
            "name": spec["name"],
            "tags": spec["tags"],
            "description": spec["description"],
            "parameters": spec.get("parameters", {}),
        }
        if "schedules" in spec:
            options["schedules"] = [Cron(pipeline.nightly_cron, timezone=pipeline.timezone)]
        if "triggers" in spec:
            options["triggers"] = [
                DeploymentEventTrigger(**{key: value for key, value in trigger.items() if key != "type"})
                for trigger in spec["triggers"]
            ]
        built.append(flow.to_deployment(**options))
    return built
