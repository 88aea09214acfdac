"""Shared test fixtures: where the shared real-puzzle data lives, and a loader for it."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# CI clones the project into a fresh folder with a copy of shared/ beside it, as on a developer's machine.
SHARED_DATA = REPO.parent / "shared" / "data"


def shared_file(relative: str) -> Path:
    path = SHARED_DATA / relative
    if not path.exists():
        # Never skip: a golden test that silently does not run is a check that cannot fail.
        raise FileNotFoundError(f"shared data {path} is missing: clone the project beside shared/")
    return path
