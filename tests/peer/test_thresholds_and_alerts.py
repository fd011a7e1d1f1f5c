"""Thresholds, alert policies and alerts on chap-core 2.5.1 through the client: the endemic
channel of the peer dataset checked against the same-month history computed here, a policy
stored and read back, alerts recorded, queued for review, approved and declined, and what the
peer refuses (an unknown level, deleting an approved alert or a policy in use)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pandas as pd
import pytest

from chaplab import ChapClient
from chaplab.client import (
    AlertLevel,
    AlertPolicy,
    ArgumentError,
    ConflictError,
    Dataset,
    NewAlert,
    NotFoundError,
    PercentileParams,
    SeasonalParams,
    UnprocessableEntityError,
)


def january_cases(table: pd.DataFrame, org_unit: str) -> pd.Series:
    rows = table[(table["org_unit"] == org_unit) & table["period"].str.endswith("01")]
    return rows["disease_cases"]


def test_the_strategies_are_the_seasonal_mean_and_the_percentile(
    peer_client: ChapClient,
) -> None:
    strategies = {s.id: s for s in peer_client.list_threshold_strategies()}
    assert set(strategies) == {"seasonal", "percentile"}
    assert all(strategy.display_name for strategy in strategies.values())


def test_seasonal_thresholds_are_the_same_month_mean_plus_k_deviations(
    peer_client: ChapClient, peer_dataset: Dataset, dataset_table: pd.DataFrame
) -> None:
    thresholds = peer_client.compute_thresholds(
        peer_dataset.id, ["2023-01"], SeasonalParams(std_multiplier=[1, 2])
    )
    assert thresholds.lines == [1.0, 2.0]
    by_unit = {entry.location: entry.values for entry in thresholds.entries}
    assert set(by_unit) == {"OU_North", "OU_South"}
    for org_unit, values in by_unit.items():
        cases = january_cases(dataset_table, org_unit)
        expected = [cases.mean() + k * cases.std() for k in (1, 2)]
        assert values == pytest.approx(expected)


def test_percentile_thresholds_for_one_org_unit(
    peer_client: ChapClient, peer_dataset: Dataset, dataset_table: pd.DataFrame
) -> None:
    thresholds = peer_client.compute_thresholds(
        peer_dataset.id, ["2023-01"], {"type": "percentile", "quantile": 0.75}, "OU_North"
    )
    assert thresholds.params == PercentileParams(quantile=0.75, baseline_years=5)
    [entry] = thresholds.entries
    assert entry.location == "OU_North"
    assert entry.values == [pytest.approx(january_cases(dataset_table, "OU_North").quantile(0.75))]


def test_lines_asked_for_as_lines_are_ignored_by_chap_core_and_refused_by_the_client(
    peer_client: ChapClient, peer_http: httpx.Client, peer_dataset: Dataset
) -> None:
    """chap-core 2.5.1 ignores a parameter its strategy lacks: ``lines`` (the answer's echo of
    the line parameter) gets the default line, 2 standard deviations. The client refuses it."""
    params = {"type": "seasonal", "lines": [1.0]}
    body = {"datasetId": peer_dataset.id, "periodIds": ["2023-01"], "params": params}
    answer = peer_http.post("/v1/analytics/thresholds", json=body)
    assert answer.status_code == 200, answer.text
    assert answer.json()["params"] == {"type": "seasonal", "stdMultiplier": 2.0}
    assert answer.json()["lines"] == [2.0]
    with pytest.raises(ArgumentError, match=r"std_multiplier=\[1.0\]"):
        peer_client.compute_thresholds(peer_dataset.id, ["2023-01"], params)


@pytest.fixture
def policy(peer_client: ChapClient) -> Iterator[AlertPolicy]:
    levels = [
        AlertLevel(
            name="monitor",
            threshold_params=SeasonalParams(std_multiplier=1),
            exceedance_threshold=0.5,
        ),
        AlertLevel(
            name="alert", threshold_params=PercentileParams(quantile=0.9), exceedance_threshold=0.8
        ),
    ]
    yield peer_client.create_alert_policy("peer policy", levels)


def test_a_policy_is_stored_with_its_levels(peer_client: ChapClient, policy: AlertPolicy) -> None:
    assert [level.name for level in policy.levels] == ["monitor", "alert"]
    assert policy.levels[1].threshold_params == PercentileParams(quantile=0.9, baseline_years=5)
    assert policy.id in [item.id for item in peer_client.list_alert_policies()]
    assert peer_client.get_alert_policy(policy.id) == policy
    peer_client.delete_alert_policy(policy.id)
    with pytest.raises(NotFoundError):
        peer_client.get_alert_policy(policy.id)


def test_alerts_wait_for_review_then_are_approved_or_declined(
    peer_client: ChapClient, policy: AlertPolicy
) -> None:
    north = peer_client.create_alert(policy.id, "alert", "OU_North", "202301")
    [south_id] = peer_client.create_alerts(
        [
            NewAlert(
                alert_policy_id=policy.id,
                level="monitor",
                org_unit="OU_South",
                time_period="202301",
            ),
        ]
    )
    assert north.approved == "pending" and north.approved_by is None
    queue = peer_client.alert_review_queue(alert_policy_id=policy.id)
    assert {alert.id for alert in queue} == {north.id, south_id}
    assert [a.id for a in peer_client.list_alerts(policy.id, org_unit="OU_South")] == [south_id]

    [approved] = peer_client.approve_alert(north.id, "peer reviewer")
    assert (approved.approved, approved.approved_by) == ("approved", "peer reviewer")
    assert approved.approved_at is not None
    [declined] = peer_client.decline_alert([south_id], "peer reviewer")
    assert declined.approved == "declined"
    assert peer_client.alert_review_queue(alert_policy_id=policy.id) == []
    assert [a.id for a in peer_client.list_alerts(policy.id, approved="approved")] == [north.id]
    assert peer_client.get_alert(south_id).approved == "declined"

    with pytest.raises(NotFoundError):  # all or none: nothing changes
        peer_client.approve_alert([south_id, 999_999], "peer reviewer")
    assert peer_client.get_alert(south_id).approved == "declined"
    with pytest.raises(ConflictError):  # an approved alert stays on record
        peer_client.delete_alert(north.id)
    with pytest.raises(ConflictError):  # and so does the policy it was raised against
        peer_client.delete_alert_policy(policy.id)
    peer_client.delete_alert(south_id)
    with pytest.raises(NotFoundError):
        peer_client.get_alert(south_id)


def test_an_alert_must_name_a_level_of_its_policy(
    peer_client: ChapClient, policy: AlertPolicy
) -> None:
    with pytest.raises(UnprocessableEntityError, match="no level 'outbreak'"):
        peer_client.create_alert(policy.id, "outbreak", "OU_North", "202301")
    assert peer_client.list_alerts(alert_policy_id=policy.id) == []
    peer_client.delete_alert_policy(policy.id)
