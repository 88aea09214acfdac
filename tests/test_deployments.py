"""prefect.yaml is the one definition of the deployments: `prefect deploy --all` reads it, and `serve` builds the
same deployments from it (flows/deployments.py), the nightly one on the config's schedule."""

from __future__ import annotations

from flows.deployments import PREFECT_YAML, deployment_specs, served_deployments
from flows.settings import Settings


def test_prefect_yaml_names_three_flows_on_the_work_pool_with_the_config_s_default_schedule() -> None:
    specs = {spec["name"]: spec for spec in deployment_specs()}
    assert sorted(specs) == ["backfill", "nightly", "regrade"]
    defaults = Settings().pipeline
    for spec in specs.values():
        path, function = spec["entrypoint"].split(":")
        assert function in (PREFECT_YAML.parent / path).read_text(encoding="utf-8")
        assert spec["work_pool"]["name"] == "starbattle" and spec["tags"] and spec["description"]
    nightly = specs["nightly"]
    assert nightly["parameters"] == {"kind": "nightly"}
    assert nightly["schedules"] == [{"cron": defaults.nightly_cron, "timezone": defaults.timezone}]
    [trigger] = nightly["triggers"]
    assert trigger["name"] == "nightly-overdue" and trigger["posture"] == "Proactive"
    assert trigger["expect"] == ["prefect.flow-run.Completed"] and trigger["within"] == 26 * 3600
    assert all("schedules" not in specs[name] and "triggers" not in specs[name] for name in ("backfill", "regrade"))


def test_serve_builds_the_same_deployments_with_the_config_s_schedule() -> None:
    settings = Settings.model_validate({"pipeline": {"nightly_cron": "30 4 * * *", "timezone": "Europe/Paris"}})
    built = {deployment.name: deployment for deployment in served_deployments(settings)}
    specs = {spec["name"]: spec for spec in deployment_specs()}
    assert sorted(built) == sorted(specs)
    nightly = built["nightly"]
    [schedule] = nightly.schedules
    assert schedule.schedule.cron == "30 4 * * *" and schedule.schedule.timezone == "Europe/Paris"
    [trigger] = nightly.triggers
    assert trigger.name == "nightly-overdue" and trigger.expect == {"prefect.flow-run.Completed"}
    assert trigger.within.total_seconds() == 26 * 3600
    for name, spec in specs.items():
        assert built[name].entrypoint.endswith(spec["entrypoint"]) and tuple(built[name].tags) == tuple(spec["tags"])
        assert built[name].parameters == spec.get("parameters", {}) and built[name].description == spec["description"]
        assert not built[name].schedules or name == "nightly"
    assert {name: deployment.flow_name for name, deployment in built.items()} == {
        "nightly": "daily",
        "backfill": "backfill",
        "regrade": "regrade",
    }
