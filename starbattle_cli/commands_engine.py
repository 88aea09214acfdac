"""Engine commands: verify, solve, layouts."""

from __future__ import annotations

from .app import app  # noqa: F401
