"""The root of the `starbattle` command. Each command module adds its commands to `app`.

Bad input of any kind surfaces as an InputError; `main` prints its one line and exits with status 2, so a
user never sees a traceback for a mistake of theirs.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import typer

# Typer ships its own copy of click; its usage errors are these classes, not the ones of the click package.
from typer._click.exceptions import NoArgsIsHelpError, UsageError

from starbattle_core.puzzle import InputError

app = typer.Typer(
    name="starbattle",
    help=(
        "Daily Star Battle and Queens puzzles: verify, solve, grade, explain and generate boards, and run the pipeline."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Command modules register themselves on `app` when imported; they import `app` from here.
from . import commands_engine, commands_generate, commands_grade, commands_pipeline  # noqa: E402,F401


def main() -> None:
    try:
        # standalone_mode=False lets usage mistakes (a missing argument, `--size abc`) reach us as exceptions,
        # so they get the same one-line answer as bad puzzles instead of click's multi-line panel.
        result = app(standalone_mode=False)
    except InputError as error:
        _fail(str(error))
    except NoArgsIsHelpError as error:
        print(error.ctx.get_help() if error.ctx is not None else "")
        raise SystemExit(0) from None
    except UsageError as error:
        where = f"{error.ctx.command_path}: " if error.ctx is not None else ""
        _fail(f"{where}{error.format_message()}")
    except typer.Abort:
        _fail("aborted")
    # Commands signal their own status (verify's 1 for "not unique") by returning or raising SystemExit.
    raise SystemExit(result if isinstance(result, int) else 0)


def _fail(message: str) -> NoReturn:
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
    raise SystemExit(2)
