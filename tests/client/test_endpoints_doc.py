"""docs/endpoints.md's table of client methods per server is the one the recorded peer
outcomes give (``tests/peer/outcomes``, written by ``make test-peer``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from chaplab.client._driver import operations

PEER = Path(__file__).resolve().parents[1] / "peer"


def script(name: str) -> ModuleType:
    """The script ``tests/peer/<name>.py`` that writes a table of docs/endpoints.md, loaded
    (it is run as a file, not imported as a package's module)."""
    spec = importlib.util.spec_from_file_location(name, PEER / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_doc_shows_the_recorded_outcomes_of_every_method_on_both_servers() -> None:
    table = script("endpoint_table")
    documents = table.load()
    servers = [document["server"] for document in documents]
    assert servers[0].startswith("chaplab") and any(s == "CHAP Core API 2.5.1" for s in servers)
    for document in documents:
        unrecorded = set(operations()) - set(document["methods"])
        assert not unrecorded, (
            f"no outcome on {document['server']} for {sorted(unrecorded)}: call them in "
            "tests/peer/test_every_method.py, run it against that server (make test-peer; "
            "CHAP_URL=<our service> for ours) and python tests/peer/endpoint_table.py"
        )
        assert set(document["methods"]) <= set(operations()), document["server"]
    text = table.DOC.read_text()
    assert table.updated(text, table.render(documents)) == text


def test_a_cell_names_the_alternative_of_an_unsupported_call() -> None:
    table = script("endpoint_table")
    calls = [
        {"call": "metrics_csv(evaluation_id)", "outcome": "works"},
        {"call": "metrics_csv()", "outcome": "unsupported", "alternative": "per id"},
    ]
    assert table.cell(calls) == (
        "`metrics_csv(evaluation_id)` works<br>`metrics_csv()` unsupported; instead: per id"
    )
    assert table.cell([{"call": "health()", "outcome": "works"}]) == "works"


def test_the_doc_shows_the_recorded_comparison_of_every_route_on_both_servers() -> None:
    """docs/endpoints.md's "Fields compared on both servers" is what the last passing run of
    ``tests/peer/test_fidelity.py`` recorded, and it found no field of chap-core's that ours
    lacks beyond the deliberate differences (which that test reads from the same doc)."""
    table = script("fidelity_table")
    rows = table.load()
    assert {
        "GET /v1/crud/backtests",
        "POST /v1/crud/prediction-setups/{predictionSetupId}/run",
    } <= {row["route"] for row in rows}
    text = table.DOC.read_text()
    assert table.updated(text, table.render(rows)) == text
