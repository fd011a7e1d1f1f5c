"""Render docs/images/fan_chart.png with the README's first example.

Run ``python docs/images/make_fan_chart.py``: it starts the embedded service on a new SQLite
database in a temporary folder (seeded with the demo dataset), runs the README's first python
block against it as written, and saves the Figure that block draws.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

README = Path(__file__).resolve().parents[2] / "README.md"


def first_example() -> str:
    """The README's first python block."""
    match = re.search(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    if match is None:
        raise SystemExit("README.md has no python example")
    return match.group(1)


def main() -> None:
    from chaplab.service import create_app
    from chaplab.toolkit import BackgroundServer

    with tempfile.TemporaryDirectory() as folder:
        app = create_app(Path(folder) / "chaplab.db", workers=2)
        with BackgroundServer(app, "127.0.0.1") as server:
            os.environ["CHAP_URL"] = server.url
            namespace: dict[str, object] = {}
            exec(compile(first_example(), str(README), "exec"), namespace)
    target = Path(__file__).with_name("fan_chart.png")
    namespace["figure"].savefig(target, dpi=110, metadata={"Software": None})
    print(target)


if __name__ == "__main__":
    main()
