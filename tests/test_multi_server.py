"""The loop services split over processes (tests/multi_server.py, what `bench/bench_pipeline.py --scale
--services-split K --persisters P` starts): each process's settings, read by Prefect's own code, switch on
exactly the services its part of the layout names, and the processes together run every service of Prefect's
one-process layout, none twice but the task-run recorders and event persisters asked for (each a Redis consumer
group, where several consumers share the stream). Starting the servers costs 60-80 CPU s, more than a test may: this
checks the layout in-process, from the settings each process would start with.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import pytest
from multi_server import ONE_PROCESS, services_settings, split_layout

# What every process of the bench runs with (multi_server.py sets it for all): no telemetry heartbeat.
BASE = {"PREFECT_SERVER_ANALYTICS_ENABLED": "false"}


def enabled_services(switches: Mapping[str, str]) -> Counter[str]:
    """The services a `prefect server services start` process with these settings runs: Prefect's Service classes
    and its docket-run perpetual services (prefect/cli/_server_utils.py, `_run_all_services`), by name."""
    from prefect.context import SettingsContext, get_settings_context
    from prefect.server.services.base import Service
    from prefect.server.services.perpetual_services import get_enabled_perpetual_services
    from prefect.settings import Settings

    with environment({**BASE, **switches}):
        settings = Settings()
    with SettingsContext(profile=get_settings_context().profile, settings=settings):
        names = [service.__name__ for service in Service.enabled_services()]
        names += [config.function.__name__ for config in get_enabled_perpetual_services()]
    return Counter(names)


@contextmanager
def environment(variables: Mapping[str, str]) -> Iterator[None]:
    """These variables set, and no other PREFECT_SERVER_ setting of the test's own process, while Prefect's settings
    are read."""
    saved = dict(os.environ)
    for name in [name for name in os.environ if name.startswith("PREFECT_SERVER_")]:
        del os.environ[name]
    os.environ.update(variables)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def layout_services(layout: list[frozenset[str]]) -> Iterator[Counter[str]]:
    for part in layout:
        yield enabled_services(services_settings(part))


def test_the_split_layout_runs_every_service_once_but_the_shared_ones() -> None:
    one_process = enabled_services(services_settings(ONE_PROCESS[0]))
    assert one_process["TaskRunRecorder"] == one_process["EventPersister"] == 1
    parts = list(layout_services(split_layout(recorders=3, persisters=2)))
    assert len(parts) == 6
    # The recorders and persisters run their service and nothing else (the persister's schedule of the events'
    # vacuum is switched by the persister's own setting, so it goes with it).
    assert parts[:3] == [Counter({"TaskRunRecorder": 1})] * 3
    assert parts[3:5] == [Counter({"EventPersister": 1, "schedule_event_vacuum_tasks": 1})] * 2
    together = sum(parts, Counter())
    shared = {"TaskRunRecorder": 3, "EventPersister": 2, "schedule_event_vacuum_tasks": 2}
    assert together == Counter({name: shared.get(name, 1) for name in one_process})
    # "The rest" is everything else of the one process: its switches name every other service on.
    assert parts[5] == Counter({name: 1 for name in one_process if name not in shared})


def test_a_layout_that_names_no_process_or_an_unknown_service_is_refused() -> None:
    with pytest.raises(ValueError, match="1 or more"):
        split_layout(recorders=0)
    with pytest.raises(ValueError, match="1 or more"):
        split_layout(persisters=0)
    with pytest.raises(ValueError, match="unknown Prefect services"):
        services_settings({"task-run recorder", "task recorder"})
    # Every service has a switch, so a process with none of them on runs nothing but its docket worker.
    assert enabled_services(services_settings(set())) == Counter()
