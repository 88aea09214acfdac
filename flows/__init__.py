"""The pipeline: its configuration and the Prefect flows that make, store (starbattle_store) and report the daily
boards.

`flows.settings` imports no Prefect, so the CLI can validate a config (and read the database) without paying
Prefect's start-up; the flow modules import Prefect only after `flows.environment` has pointed it at the
project's own Prefect home.
"""
