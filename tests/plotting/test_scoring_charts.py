"""The scoring charts: what a reader notices (order, values, titles, one panel per model)."""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle

from chaplab import scoring
from chaplab.frames import with_org_unit_names
from chaplab.plotting import (
    coverage_chart,
    leaderboard_chart,
    pit_chart,
    score_heatmap,
    wis_components_chart,
)
from chaplab.plotting._figure import ChartFigure
from scoring.cases import normal_actuals, normal_forecasts

MODELS = ("naive", "good", "biased", "narrow")


@pytest.fixture(scope="module")
def evaluation() -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    forecasts = {
        "naive": normal_forecasts(6, spread=2.5, seed=3),
        "good": normal_forecasts(6, seed=4),
        "biased": normal_forecasts(6, shift=12, seed=5),
        "narrow": normal_forecasts(6, spread=0.4, seed=6),
    }
    return forecasts, normal_actuals(6)


@pytest.fixture(scope="module")
def scores(evaluation: tuple[dict[str, pd.DataFrame], pd.DataFrame]) -> pd.DataFrame:
    return scoring.score(*evaluation)


def by_gid(ax: plt.Axes, prefix: str) -> dict[str, object]:
    """The artists whose gid starts with ``prefix``, by the rest of their gid."""
    artists = [*ax.lines, *ax.patches, *ax.images]
    named = [(artist.get_gid() or "", artist) for artist in artists]
    return {gid[len(prefix) + 1 :]: artist for gid, artist in named if gid.startswith(prefix)}


def test_the_leaderboard_ranks_models_best_first_with_their_intervals(scores) -> None:
    skill = scoring.relative_skill(scores, baseline="naive", n_bootstrap=100)
    figure = leaderboard_chart(skill)
    ax = figure.axes[0]
    ranked = skill.sort_values("relative_skill")
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        f"{rank}. {model}" for rank, model in enumerate(ranked["model"], 1)
    ]
    points = by_gid(ax, "skill")
    intervals = by_gid(ax, "interval")
    for row, record in enumerate(ranked.itertuples()):
        assert points[record.model].get_xydata().tolist() == [[record.relative_skill, row]]
        assert intervals[record.model].get_xdata().tolist() == [record.lower, record.upper]
    labels = [text.get_text() for text in ax.texts]
    assert "1.00 (baseline)" in labels
    good = ranked.set_index("model").loc["good"]
    assert f"{good.relative_skill:.2f} [{good.lower:.2f}\u2013{good.upper:.2f}]" in labels
    assert ax.get_title() == "Leaderboard: relative WIS with bootstrap intervals"
    assert "baseline naive = 1" in ax.get_xlabel()
    assert ax.get_ylim()[0] > ax.get_ylim()[1]  # rank 1 at the top


def test_the_leaderboard_draws_into_given_axes(scores) -> None:
    skill = scoring.relative_skill(scores, baseline="good", n_bootstrap=20)
    figure, ax = plt.subplots()
    assert leaderboard_chart(skill, ax=ax, title="mine") is figure
    assert ax.get_title() == "mine"


def test_wis_components_stack_to_the_mean_wis(scores) -> None:
    summary = scoring.summarise(scores)
    figure = wis_components_chart(summary)
    ax = figure.axes[0]
    ranked = summary.sort_values("wis")
    assert [t.get_text() for t in ax.get_yticklabels()] == list(ranked["model"])
    for record in ranked.itertuples():
        dispersion = by_gid(ax, "dispersion")[record.model]
        over = by_gid(ax, "overprediction")[record.model]
        under = by_gid(ax, "underprediction")[record.model]
        assert isinstance(dispersion, Rectangle)
        assert dispersion.get_width() == pytest.approx(record.dispersion)
        assert over.get_x() == pytest.approx(record.dispersion)
        assert over.get_width() == pytest.approx(record.overprediction)
        assert under.get_x() + under.get_width() == pytest.approx(record.wis)
    totals = [text.get_text() for text in ax.texts]
    largest = ranked["wis"].max()
    decimals = max(0, 2 - int(np.floor(np.log10(largest))))
    assert totals == [f"{w:,.{decimals}f}" for w in ranked["wis"]]
    legend = [t.get_text() for t in figure.legends[0].get_texts()]
    assert legend == ["dispersion", "over-prediction", "under-prediction"]


def test_wis_components_need_one_row_per_model(scores) -> None:
    with pytest.raises(ValueError, match=r"more than one row per model: pass summarise\(scores\)"):
        wis_components_chart(scoring.summarise(scores, by="horizon"))
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['dispersion'"):
        wis_components_chart(scores.drop(columns="dispersion"))


def test_one_pit_histogram_per_model_with_bars_at_the_densities(evaluation) -> None:
    histogram = scoring.pit_histogram(*evaluation)
    figure = pit_chart(histogram)
    assert [ax.get_title() for ax in figure.axes] == list(MODELS)
    for ax, model in zip(figure.axes, MODELS, strict=True):
        rows = histogram[histogram["model"] == model]
        bars = sorted(by_gid(ax, f"pit {model}").values(), key=lambda bar: bar.get_x())
        assert [bar.get_x() for bar in bars] == pytest.approx(rows["bin_lower"].tolist())
        assert [bar.get_width() for bar in bars] == pytest.approx(
            (rows["bin_upper"] - rows["bin_lower"]).tolist()
        )
        assert [bar.get_height() for bar in bars] == pytest.approx(rows["density"].tolist())
        assert any(line.get_ydata()[0] == 1.0 for line in ax.lines)  # the calibrated level
    assert figure.get_suptitle() == "PIT histograms (flat at 1 when calibrated)"
    with pytest.raises(ValueError, match="without by="):
        pit_chart(scoring.pit_histogram(*evaluation, by="horizon"))


def test_coverage_plots_empirical_against_nominal_with_the_diagonal(evaluation) -> None:
    table = scoring.coverage(*evaluation)
    figure = coverage_chart(table)
    intervals, quantiles = figure.axes
    assert (intervals.get_title(), quantiles.get_title()) == ("Central intervals", "Quantiles")
    for ax, kind in ((intervals, "interval"), (quantiles, "quantile")):
        assert by_gid(ax, "ideal")[kind].get_xydata().tolist() == [[0, 0], [1, 1]]
        lines = by_gid(ax, f"coverage {kind}")
        assert sorted(lines) == sorted(MODELS)
        for model, line in lines.items():
            rows = table[(table["model"] == model) & (table["kind"] == kind)].sort_values("nominal")
            assert line.get_xdata().tolist() == rows["nominal"].tolist()
            assert line.get_ydata().tolist() == rows["empirical"].tolist()
    legend = [t.get_text() for t in figure.legends[0].get_texts()]
    assert legend == [*MODELS, "calibrated"]
    assert intervals.yaxis.get_major_formatter()(0.8, 0) == "80%"


def test_the_heatmap_shows_mean_scores_by_org_unit_and_horizon(scores) -> None:
    figure = score_heatmap(scores, "wis", models=["good", "biased"])
    panels = [ax for ax in figure.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["good", "biased"]
    images = [ax.images[0] for ax in panels]
    assert all(isinstance(image, AxesImage) for image in images)
    expected = scores[scores["model"] == "biased"].pivot_table(
        index="org_unit", columns="horizon", values="wis", observed=True
    )
    np.testing.assert_allclose(images[1].get_array(), expected.to_numpy())
    assert images[0].get_clim() == images[1].get_clim()  # one colour scale
    assert [t.get_text() for t in panels[0].get_yticklabels()] == list(expected.index)
    assert [t.get_text() for t in panels[0].get_xticklabels()] == ["1", "2", "3"]
    assert figure.get_suptitle() == "Mean WIS by org unit and horizon"


NAMES = {
    f"OU{i}": name
    for i, name in enumerate(("Port Loko", "Bo", "Kenema", "Bombali", "Kono", "Kailahun"))
}


def test_the_heatmap_names_its_rows_and_writes_readable_numbers(scores) -> None:
    named = with_org_unit_names(scores, NAMES)
    figure = score_heatmap(named, "wis", models=["good", "biased"])
    panels = [ax for ax in figure.axes if ax.get_title()]
    assert [t.get_text() for t in panels[0].get_yticklabels()] == sorted(NAMES.values())
    kenema = sorted(NAMES.values()).index("Kenema")
    biased = named[(named["model"] == "biased") & (named["org_unit"] == "OU2")]
    image = panels[1].images[0].get_array()
    assert image[kenema].tolist() == biased.groupby("horizon")["wis"].mean().tolist()
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    for ax in panels:
        cell_width = ax.bbox.width / len(ax.get_xticks())
        cell_height = ax.bbox.height / len(ax.get_yticks())
        numbers = [text for text in ax.texts if text.get_text()]
        assert len(numbers) == 18
        for text in numbers:
            assert text.get_fontsize() >= 9  # points: 12 pixels at 100 dpi
            box = text.get_window_extent(renderer)
            assert box.width < cell_width and box.height < cell_height
        # two significant digits of the largest: whole numbers for WIS of 3 to 30
        assert all(re.fullmatch(r"\d+", text.get_text()) for text in numbers)


def test_the_heatmap_cuts_org_units_with_a_note(scores) -> None:
    figure = score_heatmap(scores, max_org_units=4)
    assert figure.get_suptitle().endswith("; first 4 of 6 org units")
    assert len([ax for ax in figure.axes if ax.get_title()]) == len(MODELS)
    with pytest.raises(ValueError, match=r"models: \['best'\] are not in scores"):
        score_heatmap(scores, models=["best"])


def test_every_scoring_chart_is_shown_once_in_a_notebook(evaluation, scores) -> None:
    """Each chart is a ChartFigure, which a notebook shows once also as a cell's last value
    (tests/plotting/test_backends.py runs that in a kernel)."""
    figures = [
        leaderboard_chart(scoring.relative_skill(scores, baseline="naive", n_bootstrap=10)),
        wis_components_chart(scoring.summarise(scores)),
        pit_chart(scoring.pit_histogram(*evaluation)),
        coverage_chart(scoring.coverage(*evaluation)),
        score_heatmap(scores),
    ]
    assert all(isinstance(figure, ChartFigure) for figure in figures)
