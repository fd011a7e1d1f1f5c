"""What a notebook asks chap-core 2.5.1 before and around its work, through the client: whether
the service and its workers are ready, what a new evaluation's form offers (parameters,
weather providers, covariate names), a job's original request, a model service's template
(registered from a real chapkit service, retired, shown again), the faceted evaluation charts,
a specification's comparison models, and the non-deprecated spellings of two routes."""

from __future__ import annotations

import math

import httpx
import pandas as pd
import pytest

from chaplab import ChapClient
from chaplab.client import Dataset, Evaluation, NotFoundError

from .peer_data import FEATURES


class Recording(httpx.HTTPTransport):
    """Sends as usual and notes each request's path."""

    def __init__(self) -> None:
        super().__init__()
        self.paths: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.path)
        return super().handle_request(request)


def test_the_service_and_its_workers_are_ready(peer_client: ChapClient) -> None:
    ready = peer_client.readiness()
    assert ready.ready and ready.checks == {"db": "ok", "redis": "ok", "celery": "ok"}
    probe = peer_client.probe()
    assert probe.ready and set(probe.checks.values()) == {"ok"}


def test_the_backtest_form_offers_parameters_providers_and_covariate_names(
    peer_client: ChapClient,
) -> None:
    parameters = {p.name: p for p in peer_client.list_backtest_parameters()}
    assert (parameters["nPeriods"].default, parameters["nSplits"].default) == (3, 7)
    assert parameters["stride"].minimum == 1 and parameters["nPeriods"].label
    providers = {p.id: p for p in peer_client.list_weather_providers()}
    assert "climatology" in providers and not providers["climatology"].leaks_future_data
    names = {name.name: name for name in peer_client.covariate_names()}
    assert set(FEATURES) <= set(names)
    assert "naive_model" in names["rainfall"].required_by
    assert names["disease_cases"].standard


def test_a_job_keeps_the_request_it_was_sent(
    peer_client: ChapClient, peer_dataset: Dataset
) -> None:
    job = peer_client.create_evaluation("peer job request", "naive_model", peer_dataset.id, 3, 2)
    assert peer_client.job_request(job.id) == {
        "name": "peer job request",
        "modelId": "naive_model",
        "datasetId": peer_dataset.id,
        "nPeriods": 3,
        "nSplits": 2,
    }
    done = peer_client.wait_for_job(job.id)
    assert done.result_id is not None
    peer_client.delete_evaluation(done.result_id)
    with pytest.raises(NotFoundError):
        peer_client.job_request("no-such-job")


def test_a_model_service_becomes_a_template_that_can_be_retired(
    peer_client: ChapClient, model_service: str
) -> None:
    template = peer_client.register_template_from_service(model_service, role="comparison")
    assert (template.name, template.uses_chapkit, template.role) == (
        model_service,
        True,
        "comparison",
    )
    listed = {item.id: item for item in peer_client.list_model_templates()}
    assert template == listed[template.id]  # health and all
    assert template.health_status == "live"
    assert template.display_name == "chaplab mean"
    again = peer_client.register_template_from_service(model_service)
    assert again.id == template.id  # a version is stored once
    peer_client.delete_model_template(template.id)
    listed = {item.id: item for item in peer_client.list_model_templates()}
    assert listed[template.id].archived
    shown = peer_client.register_template_from_service(model_service)
    assert shown.id == template.id and not shown.archived
    with pytest.raises(NotFoundError):
        peer_client.register_template_from_service("no-such-service")


def test_an_evaluation_chart_is_drawn_facet_by_facet(
    peer_client: ChapClient, naive_evaluation: Evaluation
) -> None:
    facets = peer_client.backtest_plot_facets("evaluation_plot", naive_evaluation.id)
    assert set(facets["location"]) == {"OU_North", "OU_South"}
    assert len(facets["split_period"]) == len(naive_evaluation.split_periods)
    one = peer_client.backtest_subplot(
        "evaluation_plot", naive_evaluation.id, {"location": "OU_North"}
    )
    assert one.spec and "vega" in one.mime_type
    every = peer_client.backtest_subplots("evaluation_plot", naive_evaluation.id)
    assert len(every) == math.prod(len(values) for values in facets.values())
    assert {facet.key[1] for facet in every} == {"OU_North", "OU_South"}
    assert all(facet.plot.spec for facet in every)


def test_a_specification_lists_its_comparison_models_when_asked(
    peer_client: ChapClient, peer_dataset: Dataset, naive_evaluation: Evaluation
) -> None:
    specification_id = naive_evaluation.specification_id
    listed = peer_client.list_backtest_specifications(
        dataset_id=peer_dataset.id,
        n_periods=3,
        n_splits=2,
        stride=1,
        n_retrain=1,
        target_column="disease_cases",
    )
    assert specification_id in [specification.id for specification in listed]
    assert peer_client.list_backtest_specifications(target_column="rainfall") == []
    plain = peer_client.get_backtest_specification(specification_id)
    assert plain.comparison_models is None
    detail = peer_client.get_backtest_specification(specification_id, True)
    assert detail.comparison_models is not None
    assert naive_evaluation.id in [evaluation.id for evaluation in detail.backtests]


def test_the_client_sends_the_spellings_2_5_1_does_not_deprecate(
    peer_client: ChapClient, peer_url: str, naive_evaluation: Evaluation
) -> None:
    transport = Recording()
    with ChapClient(peer_url, transport=transport) as client:
        evaluation = client.get_evaluation(naive_evaluation.id)
        actual = client.actual_cases(naive_evaluation.id)
    sent = transport.paths
    assert f"/v1/crud/backtests/{naive_evaluation.id}" in sent
    assert f"/v1/analytics/actual-cases/{naive_evaluation.id}" in sent
    assert not [path for path in sent if path.endswith("/info") or "actualCases" in path]
    assert evaluation == peer_client.get_evaluation(naive_evaluation.id)
    older = httpx.get(f"{peer_url}/v1/analytics/actualCases/{naive_evaluation.id}").json()
    assert len(actual) == len(older["data"])
    assert isinstance(actual, pd.DataFrame)
