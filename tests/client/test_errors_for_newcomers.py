"""What a newcomer gets wrong first reads as one sentence: arguments chaplab refuses (in IPython
the class, the sentence and the hint, not a traceback through the client; still ValueErrors, or
TypeErrors for a wrong type, and nothing is sent), and an address that is no modeling service."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from IPython.core.interactiveshell import InteractiveShell

from chaplab.client import ArgumentError, ArgumentTypeError, ChapClient, ChapError

from .fake_service import FakeService, route_through


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
    refused = r"^n_periods must be a whole number from 1 to 520, got 0$"
    with pytest.raises(ValueError, match=refused) as caught:
        client.run_evaluation("try", "naive_model", 1, n_splits=-3, n_periods=0)
    assert isinstance(caught.value, ArgumentError)
    with pytest.raises(TypeError, match=r"^n_splits must be an int, got str '3'$") as wrong:
        client.create_evaluation("try", "naive_model", 1, n_splits="3")
    assert isinstance(wrong.value, ArgumentTypeError)
    assert fake.paths() == []  # refused before anything was sent


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda c: c.wait_for_job("j1", timeout=0), ArgumentError, "got 0$"),
        (lambda c: c.wait_for_baselines(1, timeout=-5), ArgumentError, "got -5$"),
        (lambda c: c.run_backtests("b", ["m"], 1, timeout="60"), ArgumentTypeError, "str '60'$"),
    ],
)
def test_a_bad_timeout_is_refused_naming_it_before_anything_is_sent(
    make_client: Any, fake: FakeService, call: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=rf"^timeout must be .*{message}"):
        call(make_client())
    assert fake.paths() == []


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
        "PlanError: n_periods must be a whole number from 1 to 520, got 0",
        "(the full traceback: set CHAPLAB_FULL_TRACEBACKS=1 in the environment)",
    ]
    client.close()


PAGE = (
    "<!DOCTYPE html><html><head><title>JupyterLab</title></head><body>"
    + "<div>lots of markup</div>" * 40
    + "</body></html>"
)


@pytest.mark.parametrize("status", [404, 200])
def test_an_address_that_is_no_modeling_service_is_named_so_without_its_html(
    make_client: Any, fake: FakeService, monkeypatch: pytest.MonkeyPatch, status: int
) -> None:
    """JupyterLab's own address given as the service's: one sentence, no page source."""

    def web_page(request: httpx.Request, fake: FakeService) -> httpx.Response:
        fake.requests.append(request)
        return httpx.Response(status, headers={"content-type": "text/html"}, text=PAGE)

    route_through(monkeypatch, fake, web_page)
    with pytest.raises(ChapError) as caught:
        make_client().list_datasets()
    text = str(caught.value)
    assert text.endswith(
        "http://chap.test is not a CHAP modeling service: it answered with the web page "
        "'JupyterLab', not the service's JSON; check the URL given to the client"
    )
    assert "<" not in text and "markup" not in text
