"""Prediction setups on chap-core 2.5.1 through the client: a finished ``naive_model``
evaluation promoted into a setup, run on fresh observations, its forecast history read back,
renamed and scheduled, and retired."""

from __future__ import annotations

import pandas as pd
import pytest

from chaplab import ChapClient
from chaplab.client import ConflictError, Evaluation, NotFoundError, QuantileTarget

from .peer_data import org_unit_geojson


def test_an_evaluation_becomes_a_setup_that_forecasts_fresh_observations(
    peer_client: ChapClient, naive_evaluation: Evaluation, dataset_table: pd.DataFrame
) -> None:
    target = QuantileTarget(quantile="0.5", data_element_id="de_median")
    setup = peer_client.create_prediction_setup(
        naive_evaluation.id, "peer setup", quantile_targets=[target]
    )
    try:
        assert setup.backtest_id == naive_evaluation.id and setup.predictions == []
        assert setup.configured_model is not None
        assert setup.configured_model.name == "naive_model"
        assert set(setup.org_units) == {"OU_North", "OU_South"}
        assert setup.quantile_targets == [target] and not setup.schedule_enabled
        assert setup.id in [item.id for item in peer_client.list_prediction_setups()]
        with pytest.raises(ConflictError):  # an evaluation backs one setup at most
            peer_client.create_prediction_setup(naive_evaluation.id, "peer setup twice")

        job = peer_client.run_prediction_setup(
            setup.id, "peer setup run", dataset_table, org_unit_geojson()
        )
        assert peer_client.job_request(job.id)["name"] == "peer setup run"
        done = peer_client.wait_for_job(job.id)
        history = peer_client.get_prediction_setup(setup.id).predictions
        assert [(p.id, p.prediction_setup_id) for p in history] == [(done.result_id, setup.id)]
        frame = peer_client.prediction_frame(history[0].id)
        assert sorted(frame["period"].astype(str).unique()) == ["2023-01", "2023-02", "2023-03"]
        assert set(frame["org_unit"]) == {"OU_North", "OU_South"}

        updated = peer_client.update_prediction_setup(
            setup.id,
            name="peer setup renamed",
            schedule_cron_expression="0 6 * * 1",
            schedule_enabled=True,
        )
        assert (updated.name, updated.schedule_cron_expression, updated.schedule_enabled) == (
            "peer setup renamed",
            "0 6 * * 1",
            True,
        )
        paused = peer_client.update_prediction_setup(setup.id, schedule_enabled=False)
        assert paused.schedule_cron_expression == "0 6 * * 1" and not paused.schedule_enabled
    finally:
        peer_client.delete_prediction_setup(setup.id)
    assert setup.id not in [item.id for item in peer_client.list_prediction_setups()]
    with pytest.raises(NotFoundError):
        peer_client.get_prediction_setup(setup.id)


def test_a_setup_of_an_unknown_evaluation_is_not_found(peer_client: ChapClient) -> None:
    with pytest.raises(NotFoundError):
        peer_client.create_prediction_setup(999_999, "nothing behind it")
