"""The README's first example runs as written against a real service."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _first_python_block(text: str) -> str:
    match = re.search(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert match, "README has no python example"
    return match.group(1)


@pytest.mark.integration
def test_the_first_look_example_runs(service_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    matplotlib.use("Agg")
    monkeypatch.setenv("CHAP_URL", service_url)
    namespace: dict[str, object] = {}

    exec(compile(_first_python_block(README.read_text()), str(README), "exec"), namespace)

    frame = namespace["frame"]
    assert len(frame) > 0
    assert set(frame["quantile"]) >= {0.1, 0.5, 0.9}
    assert namespace["evaluation"].aggregate_metrics["crps"] > 0
