"""The product code uses its dependencies through their public APIs only: no private name (a leading underscore,
or a context's `__var__`) of a third-party package is imported, read, called, assigned or overridden in the
product's packages (flows, the CLI, the engine, the store, the web server), and no third-party object is patched.

Read from the source (`ast`), with the first-party names known: an attribute `x._name` is ours when `_name` is
defined somewhere in the project (a function, class, argument or attribute we assign), and a dependency's otherwise.
Overrides are read from the live classes: a class of ours that derives from a third-party class and defines a
private name that class has.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PRODUCT = ("flows", "starbattle_cli", "starbattle_core", "starbattle_store", "starbattle_web")
FIRST_PARTY = (*PRODUCT, "tests", "bench")


def _private(name: str) -> bool:
    return name == "__var__" or (name.startswith("_") and not (name.startswith("__") and name.endswith("__")))


def _files(folders: tuple[str, ...]) -> list[Path]:
    return sorted(path for folder in folders for path in (REPO / folder).rglob("*.py"))


def _defined_names(tree: ast.AST) -> Iterator[str]:
    """Every name a file defines: functions, classes, arguments, assigned names, attributes of `self` and `cls`,
    import aliases."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, ast.arg):
            yield node.arg
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            yield node.id
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            # Our own objects' attributes; an attribute assigned on anything else (a module) is not made ours by it.
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                yield node.attr
        elif isinstance(node, ast.alias):
            yield node.asname or node.name.split(".")[0]


def _third_party(module: str | None, level: int) -> bool:
    return level == 0 and module is not None and module.split(".")[0] not in FIRST_PARTY


def private_uses(path: Path, ours: set[str]) -> Iterator[str]:
    """`file:line: what` for each private third-party name the file uses, and each third-party object it patches."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    imported: set[str] = set()  # local names bound to a third-party module or object
    where = path.relative_to(REPO)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _third_party(alias.name, 0):
                    imported.add(alias.asname or alias.name.split(".")[0])
                    if any(_private(part) for part in alias.name.split(".")):
                        yield f"{where}:{node.lineno}: imports {alias.name}"
        elif isinstance(node, ast.ImportFrom) and _third_party(node.module, node.level):
            assert node.module is not None
            for alias in node.names:
                imported.add(alias.asname or alias.name)
                if any(_private(part) for part in (*node.module.split("."), alias.name)):
                    yield f"{where}:{node.lineno}: imports {alias.name} from {node.module}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in ours:
            yield f"{where}:{node.lineno}: uses .{node.attr}"
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        for target in targets:
            if isinstance(target, ast.Attribute):
                base = target.value
                while isinstance(base, ast.Attribute):
                    base = base.value
                if isinstance(base, ast.Name) and base.id in imported:
                    yield f"{where}:{node.lineno}: patches {ast.unparse(target)}"


def _our_names() -> set[str]:
    names: set[str] = set()
    for path in _files(FIRST_PARTY):
        names.update(_defined_names(ast.parse(path.read_text(encoding="utf-8"))))
    return names


def private_overrides(module_name: str) -> Iterator[str]:
    """`module.Class.name` for each private name a class of the module defines in its body (its source, not what a
    metaclass adds) that a third-party base class also has."""
    module = importlib.import_module(module_name)
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        cls = getattr(module, node.name, None) if isinstance(node, ast.ClassDef) else None
        if not inspect.isclass(cls):
            continue
        assert isinstance(node, ast.ClassDef)
        foreign = [base for base in cls.__mro__[1:] if base.__module__.split(".")[0] not in (*FIRST_PARTY, "builtins")]
        body = {name for statement in node.body for name in _defined_names(statement) if _private(name)}
        for name in sorted(body):
            if any(hasattr(base, name) for base in foreign):
                yield f"{module_name}.{node.name}.{name}"


def _product_modules() -> list[str]:
    modules = []
    for path in _files(PRODUCT):
        parts = path.relative_to(REPO).with_suffix("").parts
        modules.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return [name for name in modules if not name.endswith("__main__")]


def test_the_product_code_uses_no_private_name_of_a_dependency() -> None:
    ours = _our_names()
    found = [use for path in _files(PRODUCT) for use in private_uses(path, ours)]
    assert found == []


@pytest.mark.parametrize("module_name", _product_modules())
def test_no_class_of_ours_overrides_a_private_method_of_a_dependency(module_name: str) -> None:
    assert list(private_overrides(module_name)) == []


def test_the_checks_find_each_kind_of_private_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each kind of use the old code made is found: a private import, a private attribute, a context's `__var__`,
    a patch of a public attribute, and an override of a private method."""
    source = tmp_path / "flows" / "sample.py"
    source.parent.mkdir()
    source.write_text(
        "import prefect.task_engine\n"
        "from typer._click.exceptions import UsageError\n"
        "from prefect.context import SettingsContext\n"
        "from typer.core import TyperOption\n"
        "limit = prefect.task_engine._concurrency\n"
        "SettingsContext.__var__.set(None)\n"
        "TyperOption.display_type_rich = None\n"
        "prefect.task_engine._concurrency = limit\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    found = sorted(line.split(": ", 1)[1] for line in private_uses(source, set()))
    assert found == [
        "imports UsageError from typer._click.exceptions",
        "patches TyperOption.display_type_rich",
        "patches prefect.task_engine._concurrency",
        "uses .__var__",
        "uses ._concurrency",
        "uses ._concurrency",
    ]
    module = tmp_path / "overriding.py"
    module.write_text(
        "from concurrent.futures import ThreadPoolExecutor\n"
        "class Pool(ThreadPoolExecutor):\n"
        "    def _adjust_thread_count(self):\n"
        "        pass\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert list(private_overrides("overriding")) == ["overriding.Pool._adjust_thread_count"]
