"""prefect.yaml (for `prefect deploy --all` and a worker) says what flows/deployments.py (for `serve`) says: the same
three deployments, entrypoints, tags, parameters, the nightly schedule and its overdue automation."""

from __future__ import annotations

from pathlib import Path

import yaml

from flows.deployments import DEPLOYMENTS, WORK_POOL, overdue_trigger, served_deployments
from flows.settings import Settings

REPO = Path(__file__).resolve().parents[1]


def test_prefect_yaml_names_the_deployments_serve_makes() -> None:
    project = yaml.safe_load((REPO / "prefect.yaml").read_text())
    by_name = {deployment["name"]: deployment for deployment in project["deployments"]}
    assert sorted(by_name) == sorted(spec.name for spec in DEPLOYMENTS)
    defaults = Settings().pipeline
    for spec in DEPLOYMENTS:
        written = by_name[spec.name]
        assert written["entrypoint"] == spec.entrypoint
        assert (REPO / spec.entrypoint.split(":")[0]).exists()
        assert written["entrypoint"].split(":")[1] in (REPO / spec.entrypoint.split(":")[0]).read_text()
        assert tuple(written["tags"]) == spec.tags
        assert written.get("parameters", {}) == spec.parameters
        assert written["description"] == spec.description
        assert written["work_pool"]["name"] == WORK_POOL
        if spec.nightly:
            assert written["schedules"] == [{"cron": defaults.nightly_cron, "timezone": defaults.timezone}]
            [trigger] = written["triggers"]
            assert trigger.pop("type") == "event" and trigger == overdue_trigger()
        else:
            assert "schedules" not in written and "triggers" not in written


def test_serve_builds_the_same_deployments_with_the_config_s_schedule() -> None:
    settings = Settings.model_validate({"pipeline": {"nightly_cron": "30 4 * * *", "timezone": "Europe/Paris"}})
    built = {deployment.name: deployment for deployment in served_deployments(settings)}
    assert sorted(built) == sorted(spec.name for spec in DEPLOYMENTS)
    nightly = built["nightly"]
    [schedule] = nightly.schedules
    assert schedule.schedule.cron == "30 4 * * *" and schedule.schedule.timezone == "Europe/Paris"
    [trigger] = nightly.triggers
    assert trigger.name == "nightly-overdue" and trigger.expect == {"prefect.flow-run.Completed"}
    for spec in DEPLOYMENTS:
        assert built[spec.name].entrypoint.endswith(spec.entrypoint)
        assert tuple(built[spec.name].tags) == spec.tags
