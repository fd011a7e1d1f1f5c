"""``chaplab lab``: the embedded service starts, JupyterLab gets its URL and any extra options."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from chaplab import cli


def test_lab_hands_the_service_url_and_extra_options_to_jupyter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHAPLAB_DATA_DIR", str(tmp_path / "data"))
    seen: dict[str, Any] = {}

    def fake_jupyter(command: Sequence[str], env: dict[str, str]) -> int:
        seen["command"] = list(command)
        seen["health"] = httpx.get(env["CHAP_URL"] + "/health").status_code
        return 0

    monkeypatch.setattr(cli.subprocess, "call", fake_jupyter)
    code = cli.main(["lab", "--notebooks", str(tmp_path), "--no-browser", "--port", "8899"])

    assert code == 0
    assert seen["health"] == 200
    assert seen["command"][-3:] == ["--no-browser", "--port", "8899"]
    assert f"--notebook-dir={tmp_path}" in seen["command"]
    assert ("--allow-root" in seen["command"]) == (os.geteuid() == 0)


def test_other_commands_refuse_unknown_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["serve", "--no-such-option"])
    assert stopped.value.code == 2
    assert "--no-such-option" in capsys.readouterr().err
