"""Fuzzing every reader (issue 11): puzzle files in each format, puzzle JSON objects, puzz.link URLs, text pictures,
the YAML config, database URLs and command lines. Whatever the input, a reader gives what the input says or one line
of InputError: never another exception (a traceback), and never a misread (a board whose stated star count, game or
solution differs from what the input says).

Bounded in time: each property runs a fixed number of examples on small inputs (about a minute in all, loaded).
Run as a script for the figures of a bigger run: `python tests/test_fuzz.py 5000` prints inputs tried, clean
(read as written), refused (one line), misread, traceback.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))  # conftest, when run as a script

from conftest import shared_file

from starbattle_core.formats import (
    KNOWN_KEYS,  # the keys a reader may take (docs/formats.md's list): any other key accepted silently is a misread
    parse_puzzles,
    puzzle_to_json,
    puzzle_to_puzzlink,
    puzzle_to_text,
    read_jsonl,
)
from starbattle_core.puzzle import InputError, Puzzle, is_solution

SEEDS: list[Puzzle] = [
    *list(read_jsonl(str(shared_file("starbattle/handmade.jsonl"))))[:6],
    *list(read_jsonl(str(shared_file("queens/linkedin.jsonl"))))[:6],
]
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
JUNK = "\x00\x1b[2J{}[]:,\"'#?/=\n\r\t \u2028\u00b2ABC019azR1C1-"


def classify(text: str) -> str:
    """What a reader made of `text`: clean, refused, misread or traceback (see the module docstring)."""
    try:
        puzzles = list(parse_puzzles(text, "fuzz"))
    except InputError as error:
        message = str(error)
        return "refused" if message and "\n" not in message else "traceback"
    except Exception:
        return "traceback"
    return "misread" if any(_misread(text, puzzle) for puzzle in puzzles) else "clean"


def _misread(text: str, puzzle: Puzzle) -> bool:
    if puzzle.solution is not None and not is_solution(puzzle, puzzle.solution):
        return True
    try:
        stated = json.loads(text)
    except ValueError:
        return False
    if isinstance(stated, dict):
        if stated.get("stars") not in (None, puzzle.stars):
            return True
        if stated.get("game") not in (None, puzzle.game):
            return True
        if stated.get("stars") is None and puzzle.game != "queens":
            return True  # a board without a star count may only be read as Queens (Meowdoku)
        if any(key not in KNOWN_KEYS for key in stated):
            return True  # a key silently dropped
    return False


def _mutate(text: str, rng: random.Random) -> str:
    """One random edit: a character replaced, inserted or removed, a slice doubled or cut, a line dropped."""
    if not text:
        return rng.choice(JUNK)
    i = rng.randrange(len(text))
    kind = rng.randrange(6)
    if kind == 0:
        return text[:i] + rng.choice(JUNK) + text[i + 1 :]
    if kind == 1:
        return text[:i] + rng.choice(JUNK) + text[i:]
    if kind == 2:
        return text[:i] + text[i + 1 :]
    if kind == 3:
        j = rng.randrange(i, len(text) + 1)
        return text[:j] + text[i:j] + text[j:]
    if kind == 4:
        return text[:i]
    lines = text.split("\n")
    del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def _json_field_edit(puzzle: Puzzle, rng: random.Random) -> str:
    """The puzzle's JSON object with one field dropped, renamed, retyped or nested deep."""
    obj: dict[str, Any] = puzzle_to_json(puzzle)
    key = rng.choice(sorted(obj))
    kind = rng.randrange(5)
    if kind == 0:
        del obj[key]
    elif kind == 1:
        obj[key[:-1] or "x"] = obj.pop(key)
    elif kind == 2:
        obj[key] = rng.choice([None, True, -1, 0, 2, 99, "2", [], {}, [[0, 0]], "queens", 1.5])
    elif kind == 3:
        obj[key] = json.loads("[" * 900 + "]" * 900)
    else:
        obj["solution"] = (obj.get("solution") or []) + [[0, 0]]
    return json.dumps(obj)


def _rendered(puzzle: Puzzle, form: int) -> str:
    return [json.dumps(puzzle_to_json(puzzle)), puzzle_to_text(puzzle), puzzle_to_puzzlink(puzzle)][form]


@FUZZ
@given(st.sampled_from(SEEDS), st.integers(0, 2), st.integers(1, 4), st.randoms(use_true_random=False))
def test_mutated_files_in_every_format_are_read_or_refused(puzzle: Puzzle, form: int, edits: int, rng) -> None:
    text = _rendered(puzzle, form)
    for _ in range(edits):
        text = _mutate(text, rng)
    assert classify(text) in ("clean", "refused"), text[:200]


@FUZZ
@given(st.sampled_from(SEEDS), st.randoms(use_true_random=False))
def test_json_field_edits_are_read_as_written_or_refused(puzzle: Puzzle, rng) -> None:
    text = _json_field_edit(puzzle, rng)
    assert classify(text) in ("clean", "refused"), text[:200]


@FUZZ
@given(st.text(alphabet=st.sampled_from(JUNK), max_size=200))
def test_any_text_is_read_or_refused(text: str) -> None:
    assert classify(text) in ("clean", "refused"), text


@FUZZ
@given(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(-5, 500), st.floats(allow_nan=False), st.text(max_size=8)),
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
        max_leaves=20,
    )
)
def test_any_config_is_loaded_or_refused(raw: Any) -> None:
    from flows.settings import validate_settings

    message = ""
    try:
        validate_settings(raw, "fuzz.yaml")
    except InputError as error:
        message = str(error)
    assert "\n" not in message


@FUZZ
@given(
    st.sampled_from(["postgresql://user", "postgresql:user", "postgresql+psycopg://user", "mysql://user", "x:/user"]),
    st.text(alphabet=st.sampled_from("postgresqlite+:/@?=&%#.0123456789abcxyz:[]"), max_size=40),
)
def test_any_database_url_is_made_or_refused_with_its_password_masked(head: str, tail: str) -> None:
    from starbattle_store.db import make_engine

    message = ""
    try:
        make_engine(f"{head}:secret@{tail}").dispose()
    except InputError as error:
        message = str(error)
    assert "\n" not in message
    assert "secret" not in message


def _figures(count: int) -> Counter[str]:
    """A bigger run for the closing figures: `count` inputs from the same generators, seeded."""
    rng = random.Random(11)
    tally: Counter[str] = Counter()
    for index in range(count):
        puzzle = rng.choice(SEEDS)
        if index % 2:
            text = _json_field_edit(puzzle, rng)
        else:
            text = _rendered(puzzle, rng.randrange(3))
            for _ in range(rng.randint(1, 4)):
                text = _mutate(text, rng)
        tally[classify(text)] += 1
    return tally


if __name__ == "__main__":
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    tally = _figures(total)
    figures = ", ".join(f"{tally[k]} {k}" for k in ("clean", "refused", "misread", "traceback"))
    sys.stdout.write(f"{total} inputs: {figures}\n")
