"""The panel's table marks an evaluation the server files as a reference run."""

from __future__ import annotations

from chaplab.client import Evaluation
from chaplab.widgets.results import evaluation_row


def test_a_reference_run_is_marked_in_its_model_column() -> None:
    reference = Evaluation(id=13, name="my median", model_id="seasonal_median", reference=True)
    ordinary = Evaluation(id=12, name="naive", model_id="naive_model")
    assert evaluation_row(reference)["model"] == "seasonal_median (reference)"
    assert evaluation_row(ordinary)["model"] == "naive_model"
