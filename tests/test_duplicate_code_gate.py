"""The repeated-code check of ``make test`` fails a new copy: the Makefile's pylint command, run
with the project's settings on a package holding a copy of a function of chaplab, fails naming
both places; six lines alike in two places fail, five pass (pylint reports a block longer than
``min-similarity-lines``, which is 5)."""

from __future__ import annotations

import inspect
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from chaplab.vocabulary import BacktestPlan

ROOT = Path(__file__).resolve().parents[1]


def gate_arguments() -> list[str]:
    """The arguments ``make test`` gives pylint, without the folder it checks."""
    (line,) = re.findall(
        r"^\t\$\(BIN\)/pylint (.*) src/chaplab$", (ROOT / "Makefile").read_text(), re.M
    )
    return shlex.split(line)


def run_gate(package: Path) -> subprocess.CompletedProcess[str]:
    """The gate run on ``package`` with the settings in pyproject.toml."""
    command = [
        sys.executable,
        "-m",
        "pylint",
        *gate_arguments(),
        f"--rcfile={ROOT / 'pyproject.toml'}",
    ]
    return subprocess.run(
        [*command, str(package)], capture_output=True, text=True, check=False, cwd=package.parent
    )


def package_of(folder: Path, modules: dict[str, str]) -> Path:
    package = folder / "copied"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, source in modules.items():
        (package / f"{name}.py").write_text(source)
    return package


def test_a_copy_of_a_function_of_chaplab_fails_naming_both_places(tmp_path: Path) -> None:
    original = textwrap.dedent(inspect.getsource(BacktestPlan.misfit))
    copy = original.replace("def misfit(", "def what_does_not_fit(")
    package = package_of(tmp_path, {"plans": original, "other_plans": copy})
    gate = run_gate(package)
    assert gate.returncode != 0, gate.stdout + gate.stderr
    assert "Similar lines in 2 files" in gate.stdout
    assert "==copied.plans:" in gate.stdout and "==copied.other_plans:" in gate.stdout


def body(lines: int, name: str) -> str:
    """A function of ``lines`` lines after its signature, the same in every function this makes."""
    steps = "".join(f"    value = value * {step} + {step}\n" for step in range(1, lines))
    return f"def {name}(value):\n{steps}    return value\n"


@pytest.mark.parametrize(("alike", "fails"), [(5, False), (6, True)])
def test_six_lines_alike_in_two_places_fail_five_pass(
    tmp_path: Path, alike: int, fails: bool
) -> None:
    package = package_of(tmp_path, {"first": body(alike, "first"), "second": body(alike, "second")})
    gate = run_gate(package)
    assert (gate.returncode != 0) == fails, gate.stdout + gate.stderr
