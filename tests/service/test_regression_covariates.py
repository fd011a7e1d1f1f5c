"""A configured regression with the Brazil dengue data's covariates, evaluated on the embedded
service over loopback."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from chaplab.client import ChapClient, UnprocessableEntityError

from .forecasting.helpers import BRAZIL_COVARIATES, brazil_like_panel
from .helpers import geojson_for, wide_frame

pytestmark = pytest.mark.integration


def brazil_like_frame() -> pd.DataFrame:
    """Four org units x four years of cases, population and Brazil's climate features."""
    return wide_frame(brazil_like_panel(n_org_units=4, n_years=4, seed=2))


def test_a_regression_configured_with_brazil_covariates_is_evaluated(
    client: ChapClient, unique: str
) -> None:
    frame = brazil_like_frame()
    dataset = client.create_dataset(
        f"brazil-like {unique}", frame, geojson=geojson_for(sorted(set(frame.location)))
    )
    with pytest.raises(UnprocessableEntityError, match="dataset_id: the data lacks 'rainfall'"):
        client.create_evaluation(f"default {unique}", "regression_model", dataset.id, 3, 2)

    model = client.create_configured_model(
        f"brazil{unique}",
        "regression_model",
        {"covariates": []},
        additional_continuous_covariates=BRAZIL_COVARIATES,
    )
    assert model.additional_continuous_covariates == BRAZIL_COVARIATES
    assert [c["name"] for c in model.covariates] == BRAZIL_COVARIATES
    evaluation = client.run_evaluation(
        f"brazil {unique}", model, dataset.id, n_periods=3, n_splits=12, timeout=120
    )
    assert evaluation.n_splits == 12 and len(evaluation.split_periods) == 12
    assert sorted(evaluation.org_units) == sorted(set(frame.location))
    assert evaluation.aggregate_metrics and all(
        math.isfinite(value) for value in evaluation.aggregate_metrics.values()
    )
    entries = client.evaluation_entries(evaluation.id)
    assert len(entries) > 0 and all(math.isfinite(entry.value) for entry in entries)

    lacking = client.create_configured_model(
        f"humid{unique}",
        "regression_model",
        {"covariates": []},
        additional_continuous_covariates=["max_temperature", "humidity"],
    )
    with pytest.raises(
        UnprocessableEntityError, match="dataset_id: the data lacks 'humidity'"
    ) as refused:
        client.create_evaluation(f"humid {unique}", lacking, dataset.id, 3, 2)
    assert refused.value.status_code == 422


def test_a_blank_additional_covariate_is_refused_by_the_client(client: ChapClient) -> None:
    with pytest.raises(ValueError, match=r"additional_continuous_covariates\[1\]"):
        client.create_configured_model(
            "blank", "regression_model", additional_continuous_covariates=["drought_index", " "]
        )
