"""Checks that keep the code honest about itself: every third-party import is declared in pyproject.toml, and the
docstring examples of the public engine run and say what the code does. (What the docs list from the code, they
write from it: tests/test_docs_reference.py.)
"""

from __future__ import annotations

import ast
import doctest
import inspect
import re
import sys
import tomllib
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from starbattle_core.counter import count_solutions
from starbattle_core.formats import parse_puzzles, puzzle_from_json, read_puzzles
from starbattle_core.grader import grade
from starbattle_core.puzzlink import puzzle_from_puzzlink
from starbattle_core.text_picture import puzzle_from_text

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
FIRST_PARTY = {"starbattle_core", "starbattle_cli", "starbattle_store", "starbattle_web", "flows"}


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
ALLOWED = {
    "starbattle_core": RUNTIME,
    "starbattle_cli": RUNTIME,
    "starbattle_store": RUNTIME,
    "starbattle_web": RUNTIME,
    "flows": RUNTIME,
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


# --- import cycles ---------------------------------------------------------------------------------------------------


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each product module -> the product modules it imports when it runs, anywhere in the file (a function's import
    too)."""
    files = {
        ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): path
        for folder in sorted(FIRST_PARTY)
        for path in (root / folder).rglob("*.py")
    }
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # Imports for type checkers only (under `if TYPE_CHECKING:`) run no code: a module may name another's types
        # that way whatever imports it.
        typing_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
            for inner in ast.walk(node)
        }
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                parts = package.split(".")[: len(package.split(".")) - max(0, node.level - 1)] if node.level else []
                module = ".".join([*parts, *([node.module] if node.module else [])])
                found.add(module)
                found.update(f"{module}.{alias.name}" for alias in node.names)
        graph[name] = {module for module in found if module in files and module != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, edges = work[-1]
            nxt = next((edge for edge in edges if edge not in index or edge in stack), None)
            if nxt is not None and nxt not in index:
                index[nxt] = low[nxt] = len(index)
                stack.append(nxt)
                work.append((nxt, iter(sorted(graph[nxt]))))
                continue
            if nxt is not None:
                low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = stack[stack.index(node) :]
                del stack[stack.index(node) :]
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_product_modules_import_each_other_without_cycles() -> None:
    assert cycles(import_graph(REPO)) == []


def test_an_import_cycle_is_found(tmp_path: Path) -> None:
    package = tmp_path / "flows"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from flows import b\n")
    (package / "b.py").write_text("def later():\n    from .c import x\n")
    (package / "c.py").write_text("import flows.a\nx = 1\n")
    assert cycles(import_graph(tmp_path)) == [["flows.a", "flows.b", "flows.c"]]
