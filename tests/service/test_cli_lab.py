"""``chaplab lab``: the embedded service starts, JupyterLab gets its URL and any extra options."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
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

    monkeypatch.setattr(cli, "_run_until_it_ends", fake_jupyter)
    code = cli.main(["lab", "--notebooks", str(tmp_path), "--no-browser", "--port", "8899"])

    assert code == 0
    assert seen["health"] == 200
    assert seen["command"][-3:] == ["--no-browser", "--port", "8899"]
    assert f"--notebook-dir={tmp_path}" in seen["command"]
    assert ("--allow-root" in seen["command"]) == (os.geteuid() == 0)


# Stands in for JupyterLab: on Ctrl-C it asks nothing and keeps running (as when the person
# answers "n"), recording whether the service still answers; it ends when told to.
FAKE_JUPYTER = textwrap.dedent(
    """
    import os, pathlib, signal, sys, time, urllib.request

    folder = pathlib.Path(os.environ["FAKE_JUPYTER_DIR"])

    def answers() -> str:
        try:
            with urllib.request.urlopen(os.environ["CHAP_URL"] + "/health", timeout=5) as r:
                return str(r.status)
        except OSError as error:
            return type(error).__name__

    def interrupted(signum, frame):
        time.sleep(1.0)  # the service, had it got the same Ctrl-C, would be gone by now
        (folder / "after-ctrl-c").write_text(answers())

    signal.signal(signal.SIGINT, interrupted)
    (folder / "url").write_text(os.environ["CHAP_URL"])
    while not (folder / "quit").exists():
        time.sleep(0.1)
    """
)


def _wait_for(path: Path, process: subprocess.Popen[bytes], seconds: float = 120) -> str:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert process.poll() is None, "chaplab lab ended early"
        assert time.monotonic() < deadline, f"{path.name} never written"
        time.sleep(0.1)
    time.sleep(0.2)  # written whole
    return path.read_text()


@pytest.mark.integration
def test_ctrl_c_leaves_the_service_to_jupyterlab_which_ends_it(tmp_path: Path) -> None:
    fake = tmp_path / "fake"
    (fake / "jupyter").mkdir(parents=True)
    (fake / "jupyter" / "__main__.py").write_text(FAKE_JUPYTER)
    (fake / "jupyter" / "__init__.py").write_text("")
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(fake), os.environ.get("PYTHONPATH", "")]),
        "CHAPLAB_DATA_DIR": str(tmp_path / "data"),
        "FAKE_JUPYTER_DIR": str(fake),
    }
    environment.pop("CHAP_URL", None)
    lab = subprocess.Popen(
        [sys.executable, "-m", "chaplab", "lab", "--notebooks", str(tmp_path)],
        env=environment,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        url = _wait_for(fake / "url", lab)
        os.killpg(lab.pid, signal.SIGINT)  # Ctrl-C: the whole foreground group gets it
        assert _wait_for(fake / "after-ctrl-c", lab) == "200"
        assert lab.poll() is None  # chaplab lab waits for JupyterLab's own decision
        (fake / "quit").write_text("")
        assert lab.wait(60) == 0
        with pytest.raises(httpx.TransportError):
            httpx.get(url + "/health", timeout=5)
    finally:
        if lab.poll() is None:
            os.killpg(lab.pid, signal.SIGKILL)
            lab.wait()


def test_other_commands_refuse_unknown_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["serve", "--no-such-option"])
    assert stopped.value.code == 2
    assert "--no-such-option" in capsys.readouterr().err
