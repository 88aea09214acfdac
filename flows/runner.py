"""Running the pipeline's flows for the CLI: one run in this process (daily, backfill, regrade, enumerate-layouts)
or the served deployments (serve); the third way, a worker on the `starbattle` pool, needs no code here
(prefect.yaml).

Both point Prefect at the project's home first (flows/environment.py) and at the project's server (flows/server.py),
and import Prefect only then: Prefect fixes its settings when first imported. The flows import while the server
starts (on a fresh home its start is mostly one core migrating Prefect's database).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flows.environment import prepare_prefect
from flows.server import prefect_api
from flows.settings import Settings


def run_flow(settings: Settings, kind: str, call: Callable[[], Any]) -> Any:
    """The final state of `call()` (a flow called with return_state=True), run tagged `kind` against the
    dashboard's server or one started for the run. `call` imports the flow it runs."""
    prepare_prefect(settings)

    def meanwhile() -> None:
        import flows.daily  # noqa: F401 (Prefect, the flows and the engine: what `call` imports first)

    with prefect_api(settings, meanwhile=meanwhile):
        from prefect import tags

        with tags(kind):
            return call()


def serve(settings: Settings, announce: Callable[[str], None]) -> None:
    """Serve the three deployments until stopped, on the dashboard's server (or one started on `ui_port`); the
    schedule stays active when this process stops, so a restart carries on."""
    prepare_prefect(settings, quiet=False)
    pipeline = settings.pipeline
    with prefect_api(settings, port=pipeline.ui_port) as api:
        from prefect import serve as prefect_serve

        from flows.deployments import served_deployments

        deployments = served_deployments(settings)
        announce(
            f"serving nightly ({pipeline.nightly_cron}, {pipeline.timezone}), backfill and regrade; "
            f"dashboard {api.removesuffix('/api')}\n"
            f"in another shell: export PREFECT_API_URL={api}"
        )
        prefect_serve(*deployments, pause_on_shutdown=False, print_starting_message=False)
