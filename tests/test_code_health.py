"""Checks that keep the code honest about itself: every third-party import is declared in pyproject.toml, the
docstring examples of the public engine run and say what the code does, and the README's figures that derive from
code agree with it.
"""

from __future__ import annotations

import ast
import doctest
import inspect
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from starbattle_core.counter import count_solutions
from starbattle_core.formats import parse_puzzles, puzzle_from_json, read_puzzles
from starbattle_core.grader import QUEENS_TECHNIQUES, STARBATTLE_TECHNIQUES, GradingConfig, grade
from starbattle_core.puzzlink import puzzle_from_puzzlink
from starbattle_core.text_picture import puzzle_from_text

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
FIRST_PARTY = {"starbattle_core", "starbattle_cli", "starbattle_web", "flows"}
README = (REPO / "README.md").read_text(encoding="utf-8")


# --- declared dependencies -----------------------------------------------------------------------------------------


def _normalised(name: str) -> str:
    """A distribution name as PyPI compares them (PEP 503): case and runs of `-`, `_`, `.` do not matter."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared(requirements: list[str]) -> set[str]:
    """The distribution names of requirement strings such as ``psycopg[binary]>=3.1``."""
    names = set()
    for requirement in requirements:
        found = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        assert found, f"pyproject.toml: cannot read the requirement {requirement!r}"
        names.add(_normalised(found.group(1)))
    return names


RUNTIME = _declared(PYPROJECT["project"]["dependencies"])
TEST_EXTRA = _declared(PYPROJECT["project"]["optional-dependencies"]["test"])
# Which declared requirements each folder may import from: the installed packages only what a user's install
# brings, the tests and benchmarks also the test extra.
# flows/cluster.py imports prefect-dask only when a run is given a Dask cluster: the optional extra `dask`.
DASK_EXTRA = _declared(PYPROJECT["project"]["optional-dependencies"]["dask"])
ALLOWED = {
    "starbattle_core": RUNTIME,
    "starbattle_cli": RUNTIME,
    "starbattle_web": RUNTIME,
    "flows": RUNTIME | DASK_EXTRA,
    "tests": RUNTIME | TEST_EXTRA,
}
ALLOWED["bench"] = ALLOWED["tests"]


def imported_modules(path: Path) -> Iterator[tuple[str, int]]:
    """The top-level module of every absolute import in a file (inside functions too), with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.partition(".")[0], node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.partition(".")[0], node.lineno


def undeclared_imports(folder: Path, allowed: set[str]) -> list[str]:
    """Imports under `folder` of a third-party module no allowed requirement provides, as ``file:line: ...``."""
    providers = metadata.packages_distributions()
    local = FIRST_PARTY | {path.stem for path in folder.glob("*.py")}  # the tests import conftest and helpers
    if folder.name == "bench":  # a bench may run a test's scenario with the tests' own helpers
        local |= {path.stem for path in (folder.parent / "tests").glob("*.py") if not path.stem.startswith("test_")}
    problems = []
    for path in sorted(folder.rglob("*.py")):
        for module, line in imported_modules(path):
            if module in sys.stdlib_module_names or module in local or module == "__future__":
                continue
            distributions = {_normalised(name) for name in providers.get(module, [])}
            if not distributions & allowed:
                where = f"{path.relative_to(folder.parent)}:{line}"
                installed = ", ".join(sorted(distributions)) or "not installed"
                problems.append(f"{where}: imports {module} ({installed}), which pyproject.toml does not declare")
    return problems


@pytest.mark.parametrize("folder", sorted(ALLOWED))
def test_every_third_party_import_is_declared(folder: str) -> None:
    assert undeclared_imports(REPO / folder, ALLOWED[folder]) == []


def test_an_undeclared_import_is_reported(tmp_path: Path) -> None:
    """The check itself: in code that may use the runtime requirements only, the standard library, the project's
    own packages, relative imports and declared packages (under their import names: yaml is PyYAML) pass, while a
    package from the test extra, or one nobody declared, is named with its file and line."""
    package = tmp_path / "engine"
    package.mkdir()
    (package / "loose.py").write_text(
        "import json\nimport yaml\nfrom numpy import zeros\nfrom . import helpers\nfrom starbattle_core import grader\n"
        "\n\ndef later():\n    import hypothesis\n    import surely_no_such_package.sub\n",
        encoding="utf-8",
    )
    assert undeclared_imports(package, RUNTIME) == [
        "engine/loose.py:9: imports hypothesis (hypothesis), which pyproject.toml does not declare",
        "engine/loose.py:10: imports surely_no_such_package (not installed), which pyproject.toml does not declare",
    ]


# --- docstring examples ------------------------------------------------------------------------------------------

# The public engine surface a user meets first: each must carry examples, and they must run.
DOCUMENTED: list[Callable[..., Any]] = [
    count_solutions,
    grade,
    puzzle_from_json,
    parse_puzzles,
    read_puzzles,
    puzzle_from_puzzlink,
    puzzle_from_text,
]


@pytest.mark.parametrize("function", DOCUMENTED, ids=lambda function: function.__name__)
def test_docstring_examples_run(function: Callable[..., Any]) -> None:
    # As `pytest --doctest-modules` would run them: in the function's own module's namespace.
    tests = doctest.DocTestFinder(recurse=False).find(function, function.__name__, module=inspect.getmodule(function))
    examples = sum(len(test.examples) for test in tests)
    assert examples > 0, f"{function.__qualname__} has no >>> examples in its docstring"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    for test in tests:
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


# --- the README's figures that come from code --------------------------------------------------------------------


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def test_readme_counts_the_techniques_the_tables_hold() -> None:
    found = re.search(
        r"([\d,]+) Star Battle techniques costing ([\d,]+) to ([\d,]+) .*?and ([\d,]+) Queens techniques in four "
        r"tiers weighted ([\d, and]+?)\. ",
        README,
        re.DOTALL,
    )
    assert found, "README.md: the grader paragraph no longer says how many techniques each game has"
    costs = [t.cost for t in STARBATTLE_TECHNIQUES]
    tiers = sorted({t.cost for t in QUEENS_TECHNIQUES})
    said = (_number(found[1]), _number(found[2]), _number(found[3]), _number(found[4]))
    assert said == (len(STARBATTLE_TECHNIQUES), min(costs), max(costs), len(QUEENS_TECHNIQUES))
    assert [int(w) for w in re.findall(r"\d+", found[5])] == tiers


def test_readme_bands_are_the_default_cutoffs() -> None:
    config = GradingConfig()
    said = re.search(r"easy < ([\d,]+) ≤ medium < ([\d,]+) ≤ hard < ([\d,]+) ≤ expert", README)
    assert said, "README.md: the Star Battle bands sentence is missing"
    assert tuple(_number(x) for x in said.groups()) == (config.easy_below, config.medium_below, config.hard_below)


def test_readme_counts_the_tests(suite_size: int | None) -> None:
    """The CI figure names how many tests there are; collecting them (no test runs) must find that many."""
    said = re.search(r"([\d,]+) tests \(`pytest --collect-only -q`", README)
    assert said, "README.md: the test-suite figure no longer says how many tests there are"
    if suite_size is None:  # a run of some files only: collect the whole suite in a process of its own
        collected = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "-o", "addopts=", "-p", "no:cacheprovider"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        count = re.search(r"^(\d+) tests? collected", collected.stdout, re.MULTILINE)
        assert count, collected.stdout[-2000:] + collected.stderr[-2000:]
        suite_size = int(count[1])
    assert _number(said[1]) == suite_size, (
        f"README.md says {said[1]} tests, the suite has {suite_size}: re-run .ci/run and update the figure"
    )


def test_readme_counts_the_shipped_examples() -> None:
    """In "verify data/examples.jsonl (N of N unique)", N is the file's number of boards (the CLI tests prove
    them unique)."""
    said = re.search(r"verify data/examples\.jsonl` \(([\d,]+) of\s+([\d,]+) unique\)", README)
    assert said, "README.md: the examples sentence no longer says how many boards verify as unique"
    boards = len(list(read_puzzles(REPO / "data" / "examples.jsonl")))
    assert (_number(said[1]), _number(said[2])) == (boards, boards)
