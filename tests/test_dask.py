"""Generation on a Dask cluster gives the boards this machine gives.

A real `distributed.LocalCluster` (two worker processes, TCP on loopback) stands in for `dask scheduler` plus
`dask worker` on other machines. The same backfill runs twice, each a `starbattle backfill` process of its own
against a fresh database: in-process over SQLite, and on the external cluster over a real PostgreSQL server (the
multi-machine case). `starbattle export` must print the same bytes. (A run's own local cluster is the same runner:
test_flows.py checks its boards against in-process ones. The config key `pipeline.dask_address` sets the same
address the option does: `test_the_config_key_and_the_option_name_one_cluster`.)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_starbattle
from pipeline_processes import SMALL_SLOTS, finished, starbattle, write_config
from postgres_server import fresh_database

from flows.tasks import STAGE_TASKS

DATES = ("2026-10-02",)  # a date whose small slots find their boards within a few candidates


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """The scheduler's tcp:// address of a two-process cluster."""
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, protocol="tcp", host="127.0.0.1", dashboard_address=":0"
    ) as local:
        yield local.scheduler_address


def executed_per_worker(address: str) -> dict[int, int]:
    """Tasks each worker process of the cluster has run so far, by process id."""
    from distributed import Client

    with Client(address, timeout=60) as client:
        counts = client.run(lambda dask_worker: (os.getpid(), dask_worker.state.executed_count))
    return dict(counts.values())


def exports(config: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("STARBATTLE_CONFIG", str(config))
    printed = {}
    for date in DATES:
        code, out, err = run_starbattle(capsys, "export", "--date", date, "--format", "jsonl")
        assert code == 0, err
        printed[date] = out
    return printed


def test_a_backfill_on_the_cluster_and_in_process_exports_the_same_bytes(
    tmp_path: Path,
    prefect_api: str,
    postgres_url: str,
    cluster: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two backfills, each a process against a fresh database: on SQLite in-process, and on the external cluster
    (its address as the option) over PostgreSQL. The cluster's export must be the in-process one, byte for byte."""
    printed = {}
    for name in ("in-process", "cluster"):
        argv = ["backfill", "--start", DATES[0], "--end", DATES[-1]]
        if name == "in-process":
            url = f"sqlite:///{tmp_path / name / 'starbattle.db'}"
        else:
            url = fresh_database(postgres_url)
            argv += ["--dask", cluster]
        config = write_config(tmp_path / name, url, workers=1)
        before = executed_per_worker(cluster)
        code, out, err = finished(starbattle(config, prefect_api, *argv))
        assert code == 0, f"{name}: {out[-2000:]}\n{err[-3000:]}"
        assert f"{len(DATES) * len(SMALL_SLOTS)} boards published" in out
        ran = {pid: count - before.get(pid, 0) for pid, count in executed_per_worker(cluster).items()}
        if name == "cluster":
            # The generation ran on the cluster, on both of its worker processes: the first round alone is two
            # chunks (one a worker) of the six stage tasks.
            assert len(ran) == 2 and min(ran.values()) >= 1
            assert sum(ran.values()) >= len(STAGE_TASKS) * 2
        else:
            assert sum(ran.values()) == 0, f"the {name} run must not touch the cluster"
        printed[name] = exports(config, capsys, monkeypatch)
    for date in DATES:
        boards = [json.loads(line) for line in printed["in-process"][date].splitlines()]
        assert [board["slot"] for board in boards] == [slot["name"] for slot in SMALL_SLOTS]
        assert printed["cluster"][date] == printed["in-process"][date]


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("127.0.0.1:8786", "error: --dask: Dask scheduler address '127.0.0.1:8786': expected tcp://HOST:PORT"),
        ("tcp://127.0.0.1", "error: --dask: Dask scheduler address 'tcp://127.0.0.1': expected tcp://HOST:PORT"),
        ("tcp://127.0.0.1:{closed}", "error: --dask: no Dask scheduler answers at tcp://127.0.0.1:{closed} ("),
    ],
)
def test_a_wrong_or_silent_address_is_one_line_and_nothing_is_written(
    address: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline_processes import free_port

    closed = free_port()  # nobody listens there
    config = write_config(tmp_path, f"sqlite:///{tmp_path / 'db' / 'starbattle.db'}")
    monkeypatch.setenv("STARBATTLE_CONFIG", str(config))
    for command in (["daily", "--date", DATES[0]], ["backfill", "--start", DATES[0], "--end", "2026-10-02"]):
        code, out, err = run_starbattle(capsys, *command, "--dask", address.format(closed=closed))
        assert code == 2 and out == ""
        assert err.startswith(message.format(closed=closed)) and err.count("\n") == 1
    assert not (tmp_path / "db").exists() and not (tmp_path / "prefect").exists()


def test_a_wrong_config_address_names_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(tmp_path, f"sqlite:///{tmp_path / 'db' / 'starbattle.db'}", dask_address="localhost:8786")
    monkeypatch.setenv("STARBATTLE_CONFIG", str(config))
    code, out, err = run_starbattle(capsys, "backfill", "--start", DATES[0], "--end", "2026-10-02")
    assert code == 2 and out == ""
    assert err == (
        f"error: {config}: pipeline.dask_address: Dask scheduler address 'localhost:8786': expected tcp://HOST:PORT "
        "(or tls://HOST:PORT)\n"
    )


def test_a_runs_own_cluster_keeps_quiet_about_losing_its_scheduler() -> None:
    """A worker whose heartbeat was in flight as a stopped run closed its local cluster printed the lost connection's
    traceback between the Ctrl-C and the run's one line (flows/worker_logs.py). Each worker of a run's own cluster
    drops the `distributed.worker` records that carry a lost connection and passes the others."""
    from flows.cluster import started
    from flows.settings import PipelineConfig

    def verdicts() -> tuple[bool, bool]:  # run on each worker (pickled by value: a nested function)
        import logging

        from distributed.comm import CommClosedError

        logger = logging.getLogger("distributed.worker")

        def passes(error: BaseException) -> bool:
            exc_info = (type(error), error, None)
            return bool(logger.filter(logger.makeRecord(logger.name, logging.ERROR, "", 0, "a message", (), exc_info)))

        return passes(CommClosedError("in <TCP (closed) ConnectionPool.heartbeat_worker>")), passes(ValueError("x"))

    with started(PipelineConfig(workers=2)) as runner:
        seen = runner.client.run(verdicts)
    assert len(seen) == 2 and set(seen.values()) == {(False, True)}


def test_the_config_key_and_the_option_name_one_cluster(cluster: str) -> None:
    """The address as `pipeline.dask_address` and as `--dask` (the flows' `dask_address`, over the config's) give
    the same runner: the backfill above runs by the option only."""
    from prefect_dask import DaskTaskRunner

    from flows.cluster import generation_runner, on_cluster
    from flows.settings import PipelineConfig, Settings

    by_key = Settings(pipeline=PipelineConfig(workers=1, dask_address=cluster))
    by_option = on_cluster(Settings(pipeline=PipelineConfig(workers=1, dask_address="tcp://127.0.0.1:1")), cluster)
    for settings in (by_key, by_option):
        runner = generation_runner(settings.pipeline)
        assert isinstance(runner, DaskTaskRunner) and runner.address == cluster
    assert on_cluster(by_key, None) is by_key
