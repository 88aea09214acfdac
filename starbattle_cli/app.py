"""The root of the `starbattle` command. Each command module adds its commands to `app`.

Bad input of any kind surfaces as an InputError; `main` prints its one line and exits with status 2, so a
user never sees a traceback for a mistake of theirs.
"""

from __future__ import annotations

import sys

import typer

from starbattle_core.puzzle import InputError

app = typer.Typer(
    name="starbattle",
    help="Daily Star Battle and Queens puzzles: verify, solve, grade, explain and generate boards, and run the pipeline.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Command modules register themselves on `app` when imported; they import `app` from here.
from . import commands_engine  # noqa: E402,F401


def main() -> None:
    try:
        app()
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
