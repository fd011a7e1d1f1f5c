"""Every chart chap-core draws for an evaluation, a dataset and a metric, as a notebook shows it:
drawn in the kernel (SVG) without error, at a size that no longer depends on the page, with
place names instead of org-unit ids, saved as a picture; a chart without data says so."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from chaplab import ChapClient
from chaplab.client import Dataset, Evaluation, ServerPlot

from .peer_data import ORG_UNITS

# chap-core's outbreak metrics need outbreak thresholds, which the tests' dataset has none of:
# their charts come without data
METRICS_WITHOUT_DATA = {"sensitivity", "specificity", "outbreak_accuracy"}


def assert_shown_safely(plot: ServerPlot) -> None:
    """The chart reaches Jupyter as a drawn picture (or the sentence saying it is empty), never
    as a specification whose size the browser must settle, and names places, not ids."""
    bundle = plot._repr_mimebundle_()
    assert not any("vega" in mime for mime in bundle)
    live = plot.interactive().spec
    assert "containerSize" not in json.dumps(live.get("signals"))
    assert not str(live.get("autosize", {}).get("type", "pad")).startswith("fit")
    if plot.empty_message is None:
        svg = bundle["image/svg+xml"]
        assert svg.startswith("<svg") and "<text" in svg
        assert not any(org_unit in svg for org_unit in ORG_UNITS)
    else:
        assert bundle["text/plain"] == plot.empty_message


def test_every_evaluation_chart_and_facet_is_drawn(
    peer_client: ChapClient, naive_evaluation: Evaluation
) -> None:
    names = peer_client.list_evaluation_plots()
    assert {"evaluation_plot", "predicted_vs_actual", "horizon_location_grid"} <= set(names)
    for name in names:
        plot = peer_client.evaluation_plot(name, naive_evaluation.id)
        assert plot.place_names == ORG_UNITS and plot.empty_message is None, name
        assert_shown_safely(plot)
        dimensions = peer_client.backtest_plot_facets(name, naive_evaluation.id)
        facets = peer_client.backtest_subplots(name, naive_evaluation.id)
        # one facet per combination of the dimensions' values; one for a chart without any
        assert len(facets) == math.prod(len(values) for values in dimensions.values()), name
        for facet in facets:
            assert len(facet.key) == len(dimensions), (name, facet.key)
            assert_shown_safely(facet.plot)


def test_a_one_dimension_facet_has_a_one_value_key(
    peer_client: ChapClient, naive_evaluation: Evaluation
) -> None:
    facets = peer_client.backtest_subplots("predicted_vs_actual", naive_evaluation.id)
    assert [facet.key for facet in facets] == [(1,), (2,), (3,)]


def test_every_metric_chart_of_every_metric_is_drawn(
    peer_client: ChapClient, naive_evaluation: Evaluation
) -> None:
    catalog = peer_client.list_metric_plots(naive_evaluation.id)
    assert "metric_by_horizon_mean" in catalog.visualizations and "crps" in catalog.metrics
    for name in catalog.visualizations:
        for metric in catalog.metrics:
            plot = peer_client.metric_plot(name, naive_evaluation.id, metric)
            assert_shown_safely(plot)
            if metric in METRICS_WITHOUT_DATA:
                # said by the client, or by the chart itself (chap-core's box plots write it)
                said = plot.empty_message or plot.picture(".svg").decode()
                assert "is empty" in said or "No valid rows" in said, (name, metric)
            else:
                assert plot.empty_message is None, (name, metric)


def test_every_dataset_chart_is_drawn(peer_client: ChapClient, peer_dataset: Dataset) -> None:
    names = peer_client.list_dataset_plots()
    assert "disease-cases-map" in names
    for name in names:
        plot = peer_client.dataset_plot(name, peer_dataset.id)
        assert plot.place_names == ORG_UNITS and plot.empty_message is None, name
        assert_shown_safely(plot)


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf", ".vg.json"])
def test_a_metric_chart_saves_for_a_report(
    peer_client: ChapClient, naive_evaluation: Evaluation, tmp_path: Path, suffix: str
) -> None:
    plot = peer_client.metric_plot("metric_by_horizon_mean", naive_evaluation.id, "crps")
    saved = plot.save(tmp_path / f"chart{suffix}")
    start = {".png": b"\x89PNG", ".svg": b"<svg", ".pdf": b"%PDF", ".vg.json": b"{"}[suffix]
    assert saved.read_bytes().startswith(start) and saved.stat().st_size > 1000
    with pytest.raises(ValueError, match=r"one of \.png, \.svg, \.pdf, \.vg\.json"):
        plot.save(tmp_path / "chart.json")
