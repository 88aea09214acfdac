"""The system's Chromium (Debian's `chromium`, never a browser download) as the browser tests, the picture tests and
the docs' screenshot scripts launch it through Playwright."""

from __future__ import annotations

import shutil

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# No update checks, no sync, no first-run pages: the browser makes no request of its own.
QUIET = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
