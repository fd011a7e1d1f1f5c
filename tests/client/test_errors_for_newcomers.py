"""Arguments chaplab refuses read like its other errors: in IPython the class, the sentence and
the hint, not a traceback through the client; they stay ValueErrors (TypeErrors for a wrong
type) and nothing is sent."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from IPython.core.interactiveshell import InteractiveShell

from chaplab.client import ArgumentError, ArgumentTypeError, ChapClient

from .fake_service import FakeService


def _shown_in_ipython(
    code: str, namespace: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> list[str]:
    """The lines an IPython shell prints when it runs ``code`` and that raises."""
    shell = InteractiveShell.instance()
    shell.user_ns.update(namespace)
    capsys.readouterr()
    shell.run_cell(code)
    return re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out).strip().splitlines()


def test_counts_out_of_range_are_value_errors_naming_the_argument(
    make_client: Any, fake: FakeService
) -> None:
    client = make_client()
    with pytest.raises(ValueError, match=r"^n_periods must be >= 1, got 0$") as caught:
        client.run_evaluation("try", "naive_model", 1, n_splits=-3, n_periods=0)
    assert isinstance(caught.value, ArgumentError)
    with pytest.raises(TypeError, match=r"^n_splits must be an int, got str '3'$") as wrong:
        client.create_evaluation("try", "naive_model", 1, n_splits="3")
    assert isinstance(wrong.value, ArgumentTypeError)
    assert fake.paths() == []  # refused before anything was sent


def test_ipython_shows_an_argument_error_in_two_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, fake: FakeService
) -> None:
    """The example of issue 33: an 83-92-line traceback through the driver before."""
    monkeypatch.delenv("CHAPLAB_FULL_TRACEBACKS", raising=False)
    client = ChapClient("http://chap.test", transport=httpx.MockTransport(fake))
    shown = _shown_in_ipython(
        'client.run_evaluation("try", "naive_model", 1, n_splits=-3, n_periods=0)',
        {"client": client},
        capsys,
    )
    assert shown == [
        "ArgumentError: n_periods must be >= 1, got 0",
        "(the full traceback: set CHAPLAB_FULL_TRACEBACKS=1 in the environment)",
    ]
    client.close()
