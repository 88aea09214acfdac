"""The reference pages under docs/reference/ are what docs/make_reference.py writes from the code now: a new
technique, configuration key or command fails here until the pages are written again. And the README's command
table names exactly the commands the CLI has."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
import typer.main

from starbattle_cli.app import app

REPO = Path(__file__).resolve().parents[1]


def _make_reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_reference", REPO / "docs" / "make_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKE_REFERENCE = _make_reference()
PAGES = MAKE_REFERENCE.pages()


@pytest.mark.parametrize("path", sorted(PAGES), ids=lambda path: path.name)
def test_reference_page_is_what_the_code_gives(path: Path) -> None:
    committed = path.read_text(encoding="utf-8") if path.exists() else ""
    assert committed == PAGES[path], f"{path.relative_to(REPO)} is out of date: uv run python docs/make_reference.py"


def test_every_technique_key_and_command_is_on_its_page() -> None:
    """What the pages are written from is all there: each technique code, each configuration key, each command."""
    from starbattle_core.grader import QUEENS_TECHNIQUES, STARBATTLE_TECHNIQUES

    techniques = PAGES[MAKE_REFERENCE.REFERENCE / "techniques.md"]
    for technique in (*STARBATTLE_TECHNIQUES, *QUEENS_TECHNIQUES):
        assert f"| `{technique.code}` | {technique.name} | {technique.cost:,} |" in techniques
    config = PAGES[MAKE_REFERENCE.REFERENCE / "config.md"]
    for key in ("grading.easy_below", "grading.experience.aha_stars", "generator.queens_motifs", "pipeline.site_dir"):
        assert f"| `{key}` |" in config
    commands = PAGES[MAKE_REFERENCE.REFERENCE / "commands.md"]
    for name in _cli_commands():
        assert f"`starbattle {name}`" in commands


def test_a_config_key_without_a_line_in_the_shipped_file_stops_the_script(tmp_path: Path, monkeypatch) -> None:
    config = tmp_path / "starbattle.yaml"
    shipped = MAKE_REFERENCE.DEFAULT_CONFIG.read_text(encoding="utf-8")
    config.write_text(re.sub(r"(?m)^  days_ahead:.*\n", "", shipped), encoding="utf-8")
    monkeypatch.setattr(MAKE_REFERENCE, "DEFAULT_CONFIG", config)
    with pytest.raises(SystemExit, match=r"no line for pipeline\.days_ahead"):
        MAKE_REFERENCE.config_page()


def _cli_commands() -> list[str]:
    return list(getattr(typer.main.get_command(app), "commands", {}))


def test_the_readme_command_table_names_every_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = re.findall(r"^\| `uv run starbattle ([a-z-]+)", readme, re.MULTILINE)
    assert sorted(set(table)) == sorted(_cli_commands())


# Pages other branches are writing (issues 26 and 27); the README links them already.
COMING = {REPO / "docs" / "web.md", REPO / "docs" / "pictures.md"}


def _anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_between_the_pages_leads_somewhere() -> None:
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    broken = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+://", target):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if linked in COMING:
                continue
            if not linked.exists():
                broken.append(f"{page.relative_to(REPO)}: {target} (no such file)")
            elif anchor and linked.suffix == ".md":
                headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), re.MULTILINE)
                if anchor not in {_anchor(heading) for heading in headings}:
                    broken.append(f"{page.relative_to(REPO)}: {target} (no such heading)")
    assert broken == []
