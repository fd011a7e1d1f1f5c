"""Evaluation endpoints through the client over loopback."""

from __future__ import annotations

import csv
import io

import pytest

from chaplab.client import ChapClient, NotFoundError, UnprocessableEntityError

from .helpers import Evaluated, geojson_for, small_frame

pytestmark = pytest.mark.integration


def test_an_evaluation_row_is_stored_without_forecasts(
    client: ChapClient, evaluated: Evaluated, unique: str
) -> None:
    row = client.create_evaluation_row(
        f"row {unique}", "naive_model", evaluated.dataset.id, n_periods=2
    )
    assert row.name == f"row {unique}" and row.dataset_id == evaluated.dataset.id
    assert row.split_periods == [] and row.aggregate_metrics == {}
    assert row.id in [e.id for e in client.list_evaluations()]
    assert client.evaluation_entries(row.id) == []


def test_an_evaluation_row_needs_a_known_model_and_dataset(
    client: ChapClient, evaluated: Evaluated
) -> None:
    with pytest.raises(NotFoundError, match="model: "):
        client.create_evaluation_row("row", "no_such_model", evaluated.dataset.id)
    with pytest.raises(NotFoundError, match="dataset_id"):
        client.create_evaluation_row("row", "naive_model", 987654)


def test_several_evaluations_are_deleted_at_once(
    client: ChapClient, evaluated: Evaluated, unique: str
) -> None:
    ids = [
        client.create_evaluation_row(f"bulk {unique} {i}", "naive_model", evaluated.dataset.id).id
        for i in range(3)
    ]
    assert client.delete_evaluations(ids[:2]) == ids[:2]
    listed = {e.id for e in client.list_evaluations()}
    assert not set(ids[:2]) & listed and ids[2] in listed


def test_a_bulk_delete_also_says_how_many_in_chap_core_words(
    client: ChapClient, evaluated: Evaluated, service_url: str, unique: str
) -> None:
    import httpx

    ids = [
        client.create_evaluation_row(
            f"counted {unique} {i}", "naive_model", evaluated.dataset.id
        ).id
        for i in range(2)
    ]
    answer = httpx.delete(
        f"{service_url}/v1/crud/backtests", params={"ids": ",".join(map(str, ids))}
    )
    assert answer.json() == {"deletedIds": ids, "message": "Deleted 2 backtests"}


def test_deleting_several_with_an_unknown_id_deletes_nothing(
    client: ChapClient, evaluated: Evaluated, service_url: str, unique: str
) -> None:
    kept = client.create_evaluation_row(f"kept {unique}", "naive_model", evaluated.dataset.id)
    with pytest.raises(NotFoundError, match="ids"):
        client.delete_evaluations([kept.id, 987654])
    assert client.get_evaluation(kept.id).name == f"kept {unique}"
    import httpx

    answer = httpx.delete(f"{service_url}/v1/crud/backtests", params={"ids": "1,x"})
    assert answer.status_code == 422 and "ids" in answer.json()["detail"]


def test_an_evaluation_is_renamed(client: ChapClient, evaluated: Evaluated, unique: str) -> None:
    row = client.create_evaluation_row(f"old {unique}", "naive_model", evaluated.dataset.id)
    renamed = client.update_evaluation(row.id, f"new {unique}")
    assert renamed.name == f"new {unique}" and client.get_evaluation(row.id).name == f"new {unique}"
    with pytest.raises(NotFoundError):
        client.update_evaluation(987654, "x")


def test_a_rename_refuses_fields_that_are_not_editable(
    service_url: str, evaluated: Evaluated
) -> None:
    import httpx

    answer = httpx.patch(
        f"{service_url}/v1/crud/backtests/{evaluated.evaluation.id}",
        json={"name": "x", "datasetId": 3},
    )
    assert answer.status_code == 422 and "datasetId" in answer.text


def test_the_full_evaluation_has_configuration_model_dataset_and_entries(
    client: ChapClient, evaluated: Evaluated
) -> None:
    full = client.get_evaluation_full(evaluated.evaluation.id, quantiles=[0.1, 0.5, 0.9])
    assert full.configuration == {"nPeriods": 2, "nSplits": 3, "stride": 1, "nSamples": 100}
    assert full.configured_model is not None and full.configured_model.name == "naive_model"
    assert full.dataset is not None and full.dataset.id == evaluated.dataset.id
    assert len(full.forecasts) == 3 * 2 * 2 * 3  # splits x org units x periods x quantiles
    entries = client.evaluation_entries(evaluated.evaluation.id, quantiles=[0.1, 0.5, 0.9])
    assert sorted(e.model_dump_json() for e in full.forecasts) == sorted(
        e.model_dump_json() for e in entries
    )
    with pytest.raises(NotFoundError):
        client.get_evaluation_full(987654)
    with pytest.raises(UnprocessableEntityError, match="quantiles"):
        client.get_evaluation_full(evaluated.evaluation.id, quantiles=[1.0])


def test_an_evaluation_on_inline_data_imports_usable_org_units(
    client: ChapClient, unique: str
) -> None:
    frame = small_frame(n_years=2)
    units = sorted(set(frame.location))
    lacking = frame.copy()
    lacking.loc[lacking.location == units[1], "disease_cases"] = float("nan")
    template = next(t for t in client.list_model_templates() if t.name == "naive_model")
    assert template.required_covariates == []
    report = client.create_evaluation_with_data(
        f"inline {unique}",
        "naive_model",
        lacking,
        geojson=geojson_for(units),
        n_periods=2,
        n_splits=2,
    )
    assert not report.dry_run and report.imported_org_units == [units[0]]
    assert report.imported_count == 1
    assert [(r.org_unit, r.reason) for r in report.rejected] == [
        (units[1], "no observed disease_cases")
    ]
    job = client.wait_for_job(report.id, timeout=120)
    evaluation = client.get_evaluation(job.result_id)
    assert evaluation.org_units == [units[0]] and evaluation.dataset_id == report.dataset_id


def test_a_dry_run_reports_without_creating_anything(client: ChapClient, unique: str) -> None:
    frame = small_frame(n_years=2)
    units = sorted(set(frame.location))
    datasets_before = len(client.list_datasets())
    jobs_before = len(client.list_jobs())
    report = client.create_evaluation_with_data(
        f"dry {unique}",
        "naive_model",
        frame,
        geojson=geojson_for(units[:1]),
        n_periods=2,
        n_splits=2,
        dry_run=True,
    )
    assert report.dry_run and report.id is None and report.dataset_id is None
    assert report.imported_org_units == units[:1] and report.imported_count == 1
    assert [(r.org_unit, r.reason) for r in report.rejected] == [
        (units[1], "no polygon in geojson")
    ]
    assert len(client.list_datasets()) == datasets_before and len(client.list_jobs()) == jobs_before


def test_inline_data_that_no_org_unit_can_use_is_refused(client: ChapClient, unique: str) -> None:
    frame = small_frame(n_years=2).drop(columns=["rainfall"])
    with pytest.raises(UnprocessableEntityError, match="frame: no org unit can be used"):
        client.create_evaluation_with_data(f"none {unique}", "regression_model", frame)
    # a dry run, a form's preflight, answers what it found, as chap-core 2.5.1's does
    checked = client.create_evaluation_with_data(
        f"none {unique}", "regression_model", frame, dry_run=True
    )
    assert checked.imported_count == 0 and checked.imported_org_units == []
    assert {rejection.org_unit for rejection in checked.rejected} == set(frame.location)
    too_many = r"n_splits: is 7, too many for the data: .* has 24; at most 4 fit$"
    with pytest.raises(UnprocessableEntityError, match=too_many):
        client.create_evaluation_with_data(
            f"long {unique}", "naive_model", frame, n_periods=20, n_splits=7
        )
    with pytest.raises(UnprocessableEntityError, match="geojson"):
        client.create_evaluation_with_data(
            f"geo {unique}", "naive_model", frame, geojson={"type": "Feature"}
        )


def test_actual_cases_are_the_dataset_target(client: ChapClient, evaluated: Evaluated) -> None:
    actuals = client.actual_cases(evaluated.evaluation.id)
    stored = client.dataset_frame(evaluated.dataset.id)
    assert len(actuals) == len(stored)
    assert actuals["value"].sum() == pytest.approx(stored["disease_cases"].sum())
    with pytest.raises(NotFoundError):
        client.actual_cases(987654)


def test_overlap_and_compatible_evaluations(
    client: ChapClient, evaluated: Evaluated, unique: str
) -> None:
    other = client.run_evaluation(
        f"overlap {unique}",
        "seasonal_naive",
        evaluated.dataset.id,
        n_periods=2,
        n_splits=2,
        timeout=120,
    )
    overlap = client.evaluation_overlap(evaluated.evaluation.id, other.id)
    assert overlap.same_dataset and overlap.org_units == evaluated.evaluation.org_units
    assert overlap.split_periods == other.split_periods  # the last two of the three splits
    other_periods = {e.period for e in client.evaluation_entries(other.id, quantiles=[0.5])}
    assert overlap.periods == sorted(other_periods)
    assert other.id in [e.id for e in client.compatible_evaluations(evaluated.evaluation.id)]
    demo = next(
        e
        for e in client.list_evaluations()
        if e.dataset_id != evaluated.dataset.id and e.split_periods
    )
    assert demo.id not in [e.id for e in client.compatible_evaluations(evaluated.evaluation.id)]
    assert not client.evaluation_overlap(evaluated.evaluation.id, demo.id).same_dataset
    with pytest.raises(NotFoundError, match="id2"):
        client.evaluation_overlap(evaluated.evaluation.id, 987654)
    with pytest.raises(NotFoundError):
        client.compatible_evaluations(987654)


def test_metrics_csv_has_a_row_per_evaluation_and_metric(
    client: ChapClient, evaluated: Evaluated
) -> None:
    rows = list(csv.DictReader(io.StringIO(client.metrics_csv(evaluated.evaluation.id))))
    assert {row["metric"] for row in rows} == set(evaluated.evaluation.aggregate_metrics)
    assert {row["backtest_id"] for row in rows} == {str(evaluated.evaluation.id)}
    crps = next(row for row in rows if row["metric"] == "crps")
    assert float(crps["value"]) == pytest.approx(evaluated.evaluation.aggregate_metrics["crps"])
    everything = list(csv.DictReader(io.StringIO(client.metrics_csv())))
    assert len({row["backtest_id"] for row in everything}) >= 2
    with pytest.raises(NotFoundError, match="evaluation_id"):
        client.metrics_csv(987654)
