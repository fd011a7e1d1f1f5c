"""Where the service keeps its data when no database is named."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

DATA_DIR_VARIABLE = "CHAPLAB_DATA_DIR"


def default_data_dir() -> Path:
    """``$CHAPLAB_DATA_DIR``, else the platform's per-user data folder (``~/.local/share/chaplab``
    or ``$XDG_DATA_HOME/chaplab``, ``~/Library/Application Support/chaplab``,
    ``%LOCALAPPDATA%\\chaplab``), else a temporary folder when that cannot be created."""
    configured = os.environ.get(DATA_DIR_VARIABLE)
    candidates = [Path(configured).expanduser()] if configured else []
    if sys.platform == "win32":
        candidates.append(
            Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / "chaplab"
        )
    elif sys.platform == "darwin":
        candidates.append(Path.home() / "Library" / "Application Support" / "chaplab")
    else:
        candidates.append(
            Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "chaplab"
        )
    for folder in candidates:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return folder
    return Path(tempfile.mkdtemp(prefix="chaplab-"))
