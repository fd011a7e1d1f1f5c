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
    import matplotlib.pyplot as plt

    plt.close(namespace["figure"])


def _block_after(text: str, heading: str, language: str) -> str:
    """The first ``language`` code block after ``heading``."""
    section = text[text.index(heading) :]
    match = re.search(rf"```{language}\n(.*?)```", section, flags=re.DOTALL)
    assert match, f"no {language} block after {heading!r}"
    return match.group(1)


def test_the_api_key_example_answers_as_the_readme_shows(tmp_path: Path) -> None:
    import json

    from asgi_test_client import TestClient

    text = README.read_text()
    code = _block_after(text, "## A service with API keys", "python")
    console = _block_after(text, "## A service with API keys", "console")
    key = re.search(r'X-API-Key: (\S+)"', console).group(1)
    key_file = tmp_path / "api-keys"
    key_file.write_text(f"# forecasts, production\n{key}\n", encoding="utf-8")
    namespace: dict[str, object] = {}
    exec(code.replace("/etc/forecasts/api-keys", str(key_file)), namespace)

    shown_ok, shown_refused = console.split("\n\n$ ")
    headers_text, shown_problem = shown_refused.split("\n\n", 1)
    path = "/v1/crud/datasets/1"
    with TestClient(namespace["app"]) as http:
        answered = http.get(path, headers={"X-API-Key": key})
        refused = http.get(path)
    assert answered.text == shown_ok.splitlines()[1]
    assert f"HTTP/1.1 {refused.status_code} {refused.reason_phrase}" in headers_text
    for line in headers_text.splitlines()[2:]:
        name, value = line.split(": ", 1)
        assert refused.headers[name] == value
    assert refused.json() == json.loads(shown_problem)
