"""The pipeline: configuration, the database, and the Prefect flows that make, store and report the daily boards.

`flows.settings` and `flows.db` import no Prefect, so the CLI can validate a config or read the database without
paying Prefect's start-up; the flow modules import Prefect only after `flows.environment` has pointed it at the
project's own Prefect home.
"""
