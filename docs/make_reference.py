"""Write the reference pages under docs/reference/ from the code, so they cannot drift from it.

    uv run python docs/make_reference.py            # rewrite the pages
    uv run python docs/make_reference.py --check    # exit 1 naming each page that is not what the code gives now

- techniques.md: the grader's technique tables, row by row in the order the solver tries them (name, code, cost,
  family), and the solver version they hash to.
- config.md: every key of the configuration (the pydantic models of flows/settings.py and the engine's), its
  default in the code, the value config/starbattle.yaml ships when it differs, and the file's own comments. A model
  field with no line in config/starbattle.yaml stops the script: a new key is documented where users set it.
- commands.md: every `starbattle` command from the typer app: its usage, help text and options.

tests/test_docs_reference.py checks that the committed pages equal what this script writes, so adding a technique,
a key or a command fails CI until the pages are written again.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer.main
import yaml
from pydantic import BaseModel

from flows.settings import DEFAULT_CONFIG, Settings
from starbattle_cli.app import app
from starbattle_core.grader import QUEENS_TECHNIQUES, SOLVER_VERSION, STARBATTLE_TECHNIQUES, Technique

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "docs" / "reference"
HEADER = "<!-- Written by docs/make_reference.py from the code: do not edit by hand. -->\n"
REWRITE = "Written from the code by `uv run python docs/make_reference.py`; a test fails when it is out of date."


# --- techniques ----------------------------------------------------------------------------------------------------


def _technique_rows(techniques: tuple[Technique, ...]) -> Iterator[str]:
    yield "| # | code | technique | cost | family |"
    yield "|---|---|---|---|---|"
    for order, technique in enumerate(techniques, 1):
        yield f"| {order} | `{technique.code}` | {technique.name} | {technique.cost:,} | {technique.family} |"


def techniques_page() -> str:
    starbattle_costs = [technique.cost for technique in STARBATTLE_TECHNIQUES]
    queens_weights = sorted({technique.cost for technique in QUEENS_TECHNIQUES})
    lines = [
        HEADER,
        "# Grading techniques",
        "",
        (
            f"{REWRITE} The solver tries the rows in this order (cheapest first) and takes the first that makes "
            "progress; a board's difficulty is the sum of the costs of the steps it took. How the grader works: "
            "[engine.md](../engine.md#the-grader)."
        ),
        "",
        (
            f"Solver version: `{SOLVER_VERSION}` (a hash of both tables and the solver's code version; it is stored "
            "with every solve path and printed by `grade --json`)."
        ),
        "",
        "## Star Battle",
        "",
        f"{len(STARBATTLE_TECHNIQUES)} techniques, costs {min(starbattle_costs):,} to {max(starbattle_costs):,}.",
        "",
        *_technique_rows(STARBATTLE_TECHNIQUES),
        "",
        "## Queens",
        "",
        (
            f"{len(QUEENS_TECHNIQUES)} techniques in tiers weighted {', '.join(str(w) for w in queens_weights)}: "
            "the cost of a Queens step is its tier's weight."
        ),
        "",
        *_technique_rows(QUEENS_TECHNIQUES),
    ]
    return "\n".join(lines) + "\n"


# --- configuration -------------------------------------------------------------------------------------------------

KEY_LINE = re.compile(r"^(?P<indent> *)(?P<key>[A-Za-z_][A-Za-z0-9_]*):(?P<rest>.*)$")


def _split_comment(rest: str) -> tuple[str, str]:
    """A YAML line's value and its trailing comment (a `#` after a space, outside quotes)."""
    quote = None
    for index, char in enumerate(rest):
        if char in "\"'" and quote in (None, char):
            quote = None if quote else char
        elif char == "#" and quote is None and (index == 0 or rest[index - 1] == " "):
            return rest[:index].strip(), rest[index + 1 :].strip()
    return rest.strip(), ""


def _config_file_items(text: str) -> Iterator[tuple[str, str, str, bool]]:
    """The file in order, as ("comment", text, "", False) for each block of comment lines and ("key", dotted path,
    trailing comment, whether a value follows on the line) for each `key:` line; list items and flow mappings are
    values, not keys."""
    parents: list[tuple[int, str]] = []
    block: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            block.append(stripped.lstrip("#").strip())
            continue
        if block:
            yield "comment", " ".join(block), "", False
            block = []
        found = KEY_LINE.match(line)
        if not found:
            continue
        indent = len(found["indent"])
        while parents and parents[-1][0] >= indent:
            parents.pop()
        path = ".".join([*(name for _, name in parents), found["key"]])
        parents.append((indent, found["key"]))
        value, comment = _split_comment(found["rest"])
        yield "key", path, comment, bool(value)
    if block:
        yield "comment", " ".join(block), "", False


def _fields(model: type[BaseModel], prefix: str) -> dict[str, Any]:
    """Every key of a settings model, by dotted path: its fields, and the fields of a field that is a model too."""
    keys: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        keys[path] = field
        inner = _model_of(field)
        if inner is not None:
            keys.update(_fields(inner, f"{path}."))
    return keys


def _model_of(field: Any) -> type[BaseModel] | None:
    """The settings model a field holds, when it holds one (a section, `grading.experience`)."""
    annotation = field.annotation
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _cell(text: str) -> str:
    """Text for a Markdown table cell: a `|` would end the cell."""
    return text.replace("|", "\\|")


def _lookup(values: dict[str, Any], path: str) -> Any:
    for part in path.split("."):
        values = values[part]
    return values


def _shown(value: Any) -> str:
    """A value as it is written in config/starbattle.yaml."""
    if isinstance(value, list) and all(isinstance(item, dict) and "name" in item for item in value):
        return ", ".join(item["name"] for item in value) or "none"
    flow = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10_000)
    return flow.strip().removesuffix("...").strip()


def config_page() -> str:
    text = DEFAULT_CONFIG.read_text(encoding="utf-8")
    keys: dict[str, Any] = {}  # dotted path -> its field; a section -> None
    for section, field in Settings.model_fields.items():
        model = _model_of(field)
        assert model is not None, f"Settings.{section} is not a section"
        keys[section] = None
        keys.update(_fields(model, f"{section}."))
    defaults = Settings().model_dump()
    shipped = Settings.model_validate(yaml.safe_load(text)).model_dump()

    lines = [
        HEADER,
        "# Configuration keys",
        "",
        (
            f"{REWRITE} The pipeline reads `config/starbattle.yaml`, or the file `$STARBATTLE_CONFIG` names; a key "
            "left out takes the default below. Every key is checked when the file is loaded: an unknown key, a wrong "
            "type or an impossible slot stops the command with one line naming the key, and exit status 2 "
            "([pipeline.md](../pipeline.md#configuration)). The text beside each key is the file's own comment."
        ),
    ]
    seen: set[str] = set()
    written_whole: list[str] = []  # keys whose value is on their own line: what is inside them is shown there
    comment_waiting = ""  # a comment is written once we know whether a section heading comes first
    in_table = False
    for kind, value, comment, inline in _config_file_items(text):
        if kind == "comment":
            comment_waiting = value
            continue
        if value not in keys:
            continue  # a value spelled as a mapping (a size_bands row), not a key of its own
        if keys[value] is None:  # a section
            lines += ["", f"## `{value}`"]
            in_table = False
        seen.add(value)
        if comment_waiting:
            lines += ["", comment_waiting]
            comment_waiting = ""
            in_table = False
        if keys[value] is None or (not inline and _model_of(keys[value]) is not None):
            continue  # its keys follow, each on a line of its own
        if not in_table:
            lines += ["", "| key | default | meaning |", "|---|---|---|"]
            in_table = True
        default = _lookup(defaults, value)
        shown = f"`{_shown(default)}`"
        if _lookup(shipped, value) != default:
            shown += f" (shipped: `{_shown(_lookup(shipped, value))}`)"
        lines.append(f"| `{value}` | {shown} | {_cell(comment)} |")
        if inline:
            written_whole.append(f"{value}.")
    missing = [key for key in keys if key not in seen and not key.startswith(tuple(written_whole))]
    if missing:
        raise SystemExit(f"{DEFAULT_CONFIG.name} has no line for {', '.join(missing)}: add each with a comment")
    return "\n".join(lines) + "\n"


# --- commands ------------------------------------------------------------------------------------------------------


def _paragraphs(text: str | None) -> list[str]:
    """A docstring's paragraphs, each on one line (click keeps the docstring's line breaks)."""
    blocks = re.split(r"\n\s*\n", (text or "").strip())
    return [" ".join(line.strip() for line in block.splitlines() if line.strip() != "\b") for block in blocks if block]


def _option_name(param: Any) -> str:
    if param.param_type_name == "argument":
        return param.name.upper()
    name = param.opts[0]
    if getattr(param, "is_flag", False):
        return name
    return f"{name} {name.lstrip('-').upper().replace('-', '_')}"


def _usage(path: str, command: Any) -> str:
    parts = [path]
    for param in command.params:
        name = _option_name(param)
        parts.append(name if param.required else f"[{name}]")
    return " ".join(parts)


def _command_lines(path: str, command: Any, level: int = 2) -> Iterator[str]:
    yield f"{'#' * level} `{path}`"
    yield ""
    subcommands = getattr(command, "commands", {})
    if subcommands:
        yield from _paragraphs(command.help)
        for name, subcommand in subcommands.items():
            yield ""
            yield from _command_lines(f"{path} {name}", subcommand, level + 1)
        return
    yield f"    {_usage(path, command)}"
    for paragraph in _paragraphs(command.help):
        yield ""
        yield paragraph
    if command.params:
        yield ""
        yield "| argument or option | default | what it does |"
        yield "|---|---|---|"
        for param in command.params:
            default = "" if param.required or param.default is None or param.default is False else f"`{param.default}`"
            help_text = " ".join(_paragraphs(getattr(param, "help", None)))
            if param.param_type_name == "argument":
                help_text = help_text or "required"
            yield f"| `{_option_name(param)}` | {default} | {_cell(help_text)} |"
    yield ""


def commands_page() -> str:
    root = typer.main.get_command(app)
    lines = [
        HEADER,
        "# Commands",
        "",
        (
            f"{REWRITE} Each command is `uv run starbattle COMMAND ...` from the project folder (or `starbattle "
            "COMMAND ...` with the virtual environment activated); `--help` after any command says the same. Bad input "
            "of any kind is one line naming the problem and exit status 2 ([formats.md](../formats.md))."
        ),
        "",
    ]
    for name, command in getattr(root, "commands", {}).items():
        lines += list(_command_lines(f"starbattle {name}", command))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).rstrip() + "\n"


# --- main ----------------------------------------------------------------------------------------------------------


def pages() -> dict[Path, str]:
    return {
        REFERENCE / "techniques.md": techniques_page(),
        REFERENCE / "config.md": config_page(),
        REFERENCE / "commands.md": commands_page(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a page is out of date")
    args = parser.parse_args()
    stale = []
    for path, text in pages().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(path.relative_to(REPO))
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{path}: {'out of date' if args.check else 'written'}")
    if args.check and stale:
        print("run `uv run python docs/make_reference.py` and commit the pages", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
