from __future__ import annotations

import math

import pandas as pd
import pytest

from chaplab.plotting import compare_chart, metrics_frame

from .cases import evaluation


def test_compare_draws_both_evaluations_on_shared_periods() -> None:
    """The last shared split by default (it changed from every split overlaid), each shared
    split in a panel of its own with ``split_period="all"``."""
    frame_a, actuals = evaluation(("OU_A", "OU_B"), n_splits=3)
    frame_b, _ = evaluation(("OU_B", "OU_C"), n_splits=2)
    figure = compare_chart(frame_a, frame_b, actuals, labels=("naive", "ar"))
    assert [ax.get_title() for ax in figure.axes] == ["OU_B"]
    gids = [c.get_gid() for c in figure.axes[0].collections]
    assert [g for g in gids if "band 0.1-0.9" in g] == [
        "naive: band 0.1-0.9 2023-02",
        "ar: band 0.1-0.9 2023-02",
    ]
    every = compare_chart(frame_a, frame_b, actuals, labels=("naive", "ar"), split_period="all")
    assert [ax.get_title() for ax in every.axes] == ["OU_B, split 2023-01", "OU_B, split 2023-02"]
    for ax in every.axes:
        gids = [c.get_gid() for c in ax.collections]
        assert sum(g.startswith("naive: band 0.1-0.9") for g in gids) == 1
        assert sum(g.startswith("ar: band 0.1-0.9") for g in gids) == 1
    labels = [t.get_text() for t in figure.legends[0].get_texts()]
    assert labels[:3] == ["naive 10\u201390%", "naive 25\u201375%", "naive median"]


def test_compare_without_shared_periods_or_levels_is_an_error() -> None:
    frame_a, _ = evaluation(("OU_A",))
    frame_b, _ = evaluation(("OU_B",))
    with pytest.raises(ValueError, match="share no org unit and period"):
        compare_chart(frame_a, frame_b)
    narrow, _ = evaluation(("OU_A",), levels=(0.5, 0.9))
    only_low, _ = evaluation(("OU_A",), levels=(0.1, 0.5))
    with pytest.raises(ValueError, match="fewer than two quantile levels"):
        compare_chart(narrow, only_low)


class Evaluation:
    def __init__(self, id: int, name: str, aggregate_metrics: dict) -> None:
        self.id, self.name, self.aggregate_metrics = id, name, aggregate_metrics


def test_metrics_frame_has_one_row_per_evaluation() -> None:
    table = metrics_frame(
        [
            Evaluation(1, "naive", {"crps": 2.5, "mae": 3.0}),
            {"id": 2, "name": "ar", "aggregateMetrics": {"crps": 1.5, "coverage_10_90": 0.8}},
        ]
    )
    assert list(table.index) == [1, 2]
    assert list(table.columns) == ["name", "crps", "mae", "coverage_10_90"]
    assert table.loc[2, "crps"] == 1.5
    assert math.isnan(table.loc[2, "mae"])
    assert metrics_frame([]).empty


def test_metrics_named_like_the_identity_columns_do_not_replace_them() -> None:
    table = metrics_frame(
        [{"id": 7, "name": "naive", "aggregate_metrics": {"name": 1.0, "crps": 0.5, "id": 2.0}}]
    )
    assert list(table.index) == [7]
    assert table.index.name == "id"
    assert list(table.columns) == ["name", "name (metric)", "crps", "id (metric)"]
    assert table.loc[7, "name"] == "naive"
    assert table.loc[7, "name (metric)"] == 1.0
    assert table.loc[7, "id (metric)"] == 2.0


def test_metrics_frame_rejects_non_numbers_and_missing_fields() -> None:
    with pytest.raises(ValueError, match="'crps' is 'low'"):
        metrics_frame([{"id": 1, "name": "x", "aggregate_metrics": {"crps": "low"}}])
    with pytest.raises(ValueError, match="evaluation 0 has no 'name'"):
        metrics_frame([{"id": 1, "aggregate_metrics": {}}])
    assert isinstance(
        metrics_frame([{"id": 1, "name": "x", "aggregate_metrics": None}]), pd.DataFrame
    )


def test_a_comparisons_value_axis_covers_what_it_draws_not_every_split() -> None:
    """One split far above the others (a 20-fold outbreak in the first) does not stretch the
    axis of the last split's panel: the drawn bands, medians and cases fill it; with every
    split drawn the axis holds the outbreak too."""
    frame_a, actuals = evaluation(("OU_A",), n_splits=3)
    frame_b, _ = evaluation(("OU_A",), n_splits=3)
    first = frame_a["split_period"] == frame_a["split_period"].min()
    frame_a.loc[first, "value"] *= 20
    last_split = frame_a["split_period"].max()
    drawn = max(
        frame[frame["split_period"] == last_split]["value"].max() for frame in (frame_a, frame_b)
    )
    last = compare_chart(frame_a, frame_b, actuals, labels=("outbreak", "calm"))
    top = last.axes[0].get_ylim()[1]
    assert drawn <= top <= 1.1 * max(drawn, actuals["value"].max())
    every = compare_chart(
        frame_a, frame_b, actuals, labels=("outbreak", "calm"), split_period="all"
    )
    assert every.axes[0].get_ylim()[1] >= frame_a["value"].max()
