""" "Copy code" writes ``chaplab.connect()`` where that reaches the panel's service, so the code
still works after the next ``make lab`` (a new port), and asks for a key only when it must."""

from __future__ import annotations

import ast
import re

import pytest

from chaplab._connect import reaches
from chaplab.widgets.snippets import (
    CodeView,
    ForecastShown,
    ViewState,
    forecast_code,
    quoted,
    view_code,
)


def test_a_service_connect_reaches_is_written_as_connect_without_its_port(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CHAP_API_KEY", raising=False)
    code = view_code(ViewState("http://127.0.0.1:42687", by_connect=True, evaluations=[(3, "e")]))
    assert "import chaplab\n" in code and "client = chaplab.connect()\n" in code
    assert "42687" not in code and "ChapClient" not in code


def test_the_key_is_asked_for_unless_connect_finds_it_in_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = ViewState("http://127.0.0.1:42687", key_in_use=True, by_connect=True)
    monkeypatch.delenv("CHAP_API_KEY", raising=False)
    assert 'chaplab.connect(api_key=getpass.getpass("API key: "))' in view_code(state)
    monkeypatch.setenv("CHAP_API_KEY", "sk_test_0123456789abcdef")
    code = view_code(state)
    assert "client = chaplab.connect()\n" in code and "getpass" not in code
    assert "sk_test" not in code


def test_another_service_is_written_with_its_address() -> None:
    code = view_code(ViewState("https://chap.example.org", proxy_prefix="/chap"))
    assert 'client = ChapClient("https://chap.example.org", proxy_prefix="/chap")' in code


def test_connect_reaches_the_service_chap_url_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHAP_URL", "https://chap.example.org/")
    monkeypatch.delenv("CHAP_PROXY_PREFIX", raising=False)
    assert reaches("https://chap.example.org")
    assert not reaches("https://chap.example.org", proxy_prefix="/chap")
    assert not reaches("http://127.0.0.1:8000")


def test_copy_code_holds_the_code_shown_for_the_browser_to_copy() -> None:
    view = CodeView()
    view.show(ViewState("http://127.0.0.1:42687", by_connect=True, evaluations=[(3, "e")]))
    assert view.copy_button.code == view.code and "evaluation_frame(3" in view.code
    assert "navigator.clipboard.writeText" in view.copy_button._esm  # copied in the browser
    assert view.text.layout.display == "none"
    view.toggle.value = True  # "show code" reveals it as well
    assert view.text.layout.display == ""


def test_copied_code_writes_every_string_in_double_quotes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHAP_API_KEY", raising=False)
    state = ViewState(
        "https://chap.example.org",
        proxy_prefix="/chap",
        evaluations=[(3, "naive on laos"), (4, "Lisa's model")],
        org_unit="O6uvpzGd5pu",
        split_period="2023-01",
    )
    compared = view_code(state)
    assert 'labels=("naive on laos", "Lisa\'s model")' in compared
    assert 'org_units="O6uvpzGd5pu", split_period="2023-01"' in compared
    shown = ForecastShown(prediction_id=5, dataset_id=2, name="naive forecast", history_periods=24)
    forecast = forecast_code(state, shown)
    assert 'observations["disease_cases"]' in forecast
    assert 'title="naive forecast"' in forecast
    for code in (compared, forecast):
        assert "'" not in code.replace("Lisa's", "")  # no single-quoted string anywhere


@pytest.mark.parametrize(
    "value", ["plain", "Lisa's", 'say "hi"', "both ' and \"", "a\\b\n", ("x",), ["a", 1], None]
)
def test_quoted_is_python_source_for_the_same_value(value: object) -> None:
    assert ast.literal_eval(quoted(value)) == value
    if isinstance(value, str) and '"' not in value:
        assert quoted(value).startswith('"')


def test_a_comment_says_what_the_chart_shows_only_where_the_code_asks_for_it() -> None:
    """The copied code said "the chart shows the 24 periods before the first split" over a
    chart that showed its default 3: a comment names the periods a chart shows only where the
    chart's call passes them as ``history``."""
    evaluation_view = view_code(
        ViewState("http://127.0.0.1:8000", evaluations=[(3, "e")], history_periods=24)
    )
    forecast_view = forecast_code(
        ViewState("http://127.0.0.1:8000"), ForecastShown(7, 1, "naive forecast", 12)
    )
    for code in (evaluation_view, forecast_view):
        for claim in re.findall(r"the chart shows the (\d+) periods", code):
            assert f"history={claim}" in code, code
    assert "the chart shows the 24 periods" not in evaluation_view
    assert "history=12" in forecast_view and "the chart shows the 12 periods" in forecast_view
