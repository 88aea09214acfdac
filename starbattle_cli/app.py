"""The root of the `starbattle` command: the command modules' commands, and one line for every mistake.

Bad input of any kind surfaces as an InputError; `main` prints its one line and exits with status 2, so a
user never sees a traceback for a mistake of theirs. The same goes for the database failing under a command (a
damaged or locked file) and for a stop from outside: Ctrl-C and SIGTERM end a command with one line (status 130 or
143) after its `finally` blocks have run, so a Prefect server it started is stopped too.
"""

from __future__ import annotations

import faulthandler
import itertools
import signal
import sys
from importlib.metadata import PackageNotFoundError, version
from types import FrameType
from typing import NoReturn

import typer

from flows import stop_request
from starbattle_core.puzzle import InputError

from . import (
    commands_engine,
    commands_generate,
    commands_grade,
    commands_picture,
    commands_pipeline,
    commands_site,
    commands_web,
)
from .puzzle_input import OutOfTime, printable

app = typer.Typer(
    name="starbattle",
    help=(
        "Daily Star Battle and Queens puzzles: verify, solve, grade, explain and generate boards, and run the pipeline."
    ),
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: typer's rich help labels every flag `<bool>`, as if it took a value (`--json true` then fails).
    rich_markup_mode=None,
)
for module in (
    commands_engine,
    commands_generate,
    commands_grade,
    commands_picture,
    commands_pipeline,
    commands_site,
    commands_web,
):
    app.add_typer(module.commands)


def _print_version(asked: bool) -> None:
    if asked:
        try:
            number = version("starbattle")
        except PackageNotFoundError:  # run from a source tree that was never installed
            number = "unknown (not installed)"
        print(f"starbattle {number}")
        raise typer.Exit(0)


@app.callback(invoke_without_command=True)
def _root(
    context: typer.Context,
    show_version: bool = typer.Option(  # noqa: ARG001 (its callback prints the version)
        False, "--version", is_eager=True, callback=_print_version, help="Print the version and exit."
    ),
) -> None:
    """Daily Star Battle and Queens puzzles: verify, solve, grade, explain and generate boards, and run the pipeline."""
    if context.invoked_subcommand is None:  # `starbattle` alone: its help
        typer.echo(context.get_help())


# The signal that stopped the command. Typer turns the KeyboardInterrupt raised for it into a plain status 130, so
# the handler notes the signal for `main` to report.
_stopped_by: list[int] = []
STOP_MESSAGES = {signal.SIGINT: "interrupted (Ctrl-C)", signal.SIGTERM: "stopped (SIGTERM)"}


def _stop(signum: int, _frame: FrameType | None) -> None:
    """SIGINT and SIGTERM: raise KeyboardInterrupt, so the command unwinds through its `finally` blocks (stopping a
    Prefect server it started) before `main` prints one line. While a funnel runs, not here (the main thread is then
    mostly inside Prefect, where pydantic can turn it into a logged traceback) but at the funnel's next safe point
    (flows/stop_request.py); a second signal raises at once."""
    _stopped_by.append(signum)
    if not stop_request.defer_stop():
        raise KeyboardInterrupt


BOOLEAN_WORDS = ("true", "false", "yes", "no", "on", "off", "1", "0")


def _flag_given_a_value() -> str | None:
    """`--json true`: which flag was given a value, as the words a user typed."""
    args = sys.argv[1:]
    for before, word in itertools.pairwise(args):
        if before.startswith("--") and word.lower() in BOOLEAN_WORDS:
            return (
                f"{before} is a flag and takes no value: write {before} alone, or leave it out (got '{before} {word}')"
            )
    return None


def _database_problem(error: Exception) -> str | None:
    """One line for a database failure under a command, when the pipeline's database module is in use."""
    db = sys.modules.get("starbattle_store.db")
    return None if db is None else db.database_problem(error)


def main() -> None:
    # `kill -USR1 PID` prints every thread's stack to stderr and the command goes on: what a run that seems stuck is
    # waiting for, without stopping it (tests/test_signals.py asks for it when a run does not get going).
    # To the process's own stderr: a test harness may have put an object with no file descriptor in sys.stderr.
    if sys.__stderr__ is not None:
        faulthandler.register(signal.SIGUSR1, file=sys.__stderr__, all_threads=True)
    previous = {signum: signal.signal(signum, _stop) for signum in STOP_MESSAGES}
    stop_request.route_sigterm(_stop)  # Prefect's flow engine puts its own in place for a run: see stop_request
    _stopped_by.clear()
    try:
        _main()
    finally:
        stop_request.route_sigterm(None)
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _main() -> NoReturn:
    try:
        # standalone_mode=False lets usage mistakes (a missing argument, `--size abc`) reach us as exceptions,
        # so they get the same one-line answer as bad puzzles instead of click's multi-line panel.
        result = app(standalone_mode=False)
    except (InputError, OutOfTime) as error:
        _fail(str(error))
    except typer.TyperException as error:  # click's usage errors (a missing argument, `--size abc`) derive from it
        context = getattr(error, "ctx", None)
        where = f"{context.command_path}: " if context is not None else ""
        message = error.format_message()
        if "unexpected extra argument" in message:
            message = _flag_given_a_value() or message
        _fail(f"{where}{message}")
    except typer.Abort:
        _fail("aborted")
    except KeyboardInterrupt:  # raised by a command itself, or before Typer took over
        if not _stopped_by:
            _stopped_by.append(signal.SIGINT)
    except Exception as error:
        # After a stop, an error is the stop's doing (a library that caught the KeyboardInterrupt raised inside it
        # and gave another exception): the stop's line below, not a traceback.
        if not _stopped_by:
            problem = _database_problem(error)
            if problem is None:
                raise
            _fail(problem)
    if _stopped_by:
        _fail(STOP_MESSAGES[signal.Signals(_stopped_by[0])], status=128 + _stopped_by[0])
    # Commands signal their own status (verify's 1 for "not unique") by returning or raising SystemExit.
    raise SystemExit(result if isinstance(result, int) else 0)


def _fail(message: str, status: int = 2) -> NoReturn:
    print(f"error: {printable(message)}", file=sys.stderr)
    raise SystemExit(status)
