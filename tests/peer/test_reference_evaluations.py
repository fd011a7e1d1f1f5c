"""chap-core 2.5.1 files the evaluations of its baseline models (seasonal_median and its
configurations) as references and leaves them out of its list; the client lists them too."""

from __future__ import annotations

import httpx

from chaplab import ChapClient
from chaplab.client import Evaluation


def test_a_seasonal_median_evaluation_is_listed_as_a_reference(
    peer_client: ChapClient,
    peer_http: httpx.Client,
    naive_evaluation: Evaluation,
    configuration_evaluation: Evaluation,
) -> None:
    server_list = {row["id"] for row in peer_http.get("/v1/crud/backtests").json()}
    assert configuration_evaluation.id not in server_list  # chap-core's own list hides it
    listed = {evaluation.id: evaluation for evaluation in peer_client.list_evaluations()}
    assert listed[naive_evaluation.id].reference is False
    reference = listed[configuration_evaluation.id]
    assert reference.reference is True and reference.name == configuration_evaluation.name
    # the panel's launcher takes the names of listed evaluations as used
    assert reference.model_id is not None and "seasonal_median" in reference.model_id
