"""binder/start: the service comes up on loopback, kernels learn CHAP_URL, and the command it is
given takes over."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from service_probe import answers, stops_answering

START_SCRIPT = Path(__file__).resolve().parents[2] / "binder" / "start"
PROBE = (
    "import os, sys, httpx\n"
    "url = os.environ['CHAP_URL']\n"
    "print(url)\n"
    "print(httpx.get(url + '/health').status_code)\n"
    "sys.exit(7)\n"
)


class StartScript:
    """Runs binder/start in its own process group and kills that group afterwards."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.groups: list[int] = []

    def run(self, *command: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
        env = {
            **os.environ,
            "HOME": str(self.home),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            **extra_env,
        }
        env.pop("CHAP_URL", None)
        process = subprocess.Popen(
            [str(START_SCRIPT), *command],
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.groups.append(process.pid)
        stdout, stderr = process.communicate(timeout=120)
        return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)

    def kill_all(self) -> None:
        for group in self.groups:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, signal.SIGTERM)


@pytest.fixture
def start_script(tmp_path: Path) -> Iterator[StartScript]:
    script = StartScript(tmp_path)
    yield script
    script.kill_all()


@pytest.mark.integration
def test_start_serves_chaplab_on_loopback_and_hands_over_to_the_command(
    start_script: StartScript, tmp_path: Path
) -> None:
    result = start_script.run(sys.executable, "-c", PROBE)

    assert result.returncode == 7, result.stderr
    url, health_status = result.stdout.split()
    assert url.startswith("http://127.0.0.1:")
    assert health_status == "200"
    assert (tmp_path / ".chaplab" / "chaplab.sqlite3").is_file()
    assert answers(url), "the service runs in the background, beside the command"

    start_script.kill_all()
    assert stops_answering(url), "killing the process group should stop the service"


@pytest.mark.integration
def test_start_fails_clearly_and_skips_the_command_when_the_service_cannot_start(
    start_script: StartScript,
) -> None:
    with socket.socket() as occupied:
        occupied.bind(("127.0.0.1", 0))
        occupied.listen()
        port = occupied.getsockname()[1]

        result = start_script.run("echo", "the command ran", CHAPLAB_PORT=str(port))

    assert result.returncode == 1
    assert "the command ran" not in result.stdout
    assert f"did not answer http://127.0.0.1:{port}/health" in result.stderr
    assert "Address already in use" in result.stderr
