"""The machine a run measured on: CPU, cores, memory, Python and key library versions."""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

LIBRARIES = (
    "numpy",
    "pandas",
    "orjson",
    "pydantic",
    "httpx",
    "fastapi",
    "uvicorn",
    "sqlalchemy",
    "matplotlib",
    "ipywidgets",
    "jsonschema",
)


def cpu_model() -> str:
    """The CPU's model name from ``/proc/cpuinfo``, else what ``platform`` knows."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def memory_gib() -> float | None:
    """Physical memory in GiB, when the OS tells it."""
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        return None


def library_versions() -> dict[str, str]:
    versions = {}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def describe_machine() -> dict[str, object]:
    """Everything the table needs to be read against."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": memory_gib(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "load_average_at_start": [round(value, 2) for value in load] if load else None,
        "libraries": library_versions(),
    }
