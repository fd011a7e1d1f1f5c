"""Which bands the charts draw: symmetric pairs by default, checked pairs on request."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from chaplab.plotting import compare_chart, fan_chart
from chaplab.plotting._bands import derive_bands

from .cases import evaluation


def _band_gids(figure: Figure) -> list[str]:
    return [c.get_gid() for c in figure.axes[0].collections if c.get_gid().startswith("band")]


def _legend(figure: Figure) -> list[str]:
    return [text.get_text() for text in figure.legends[0].get_texts()]


@pytest.mark.parametrize(
    ("levels", "bands"),
    [
        ((0.05, 0.1, 0.5, 0.9), ["0.1-0.9"]),
        ((0.1, 0.5, 0.9, 0.95), ["0.1-0.9"]),
        ((0.05, 0.1, 0.25, 0.5, 0.75, 0.9), ["0.1-0.9", "0.25-0.75"]),
        ((0.05, 0.1, 0.25, 0.75, 0.9, 0.95), ["0.05-0.95", "0.1-0.9", "0.25-0.75"]),
    ],
)
def test_default_bands_pair_each_level_with_its_mirror(levels, bands: list[str]) -> None:
    frame, _ = evaluation(("OU_A",), n_splits=1, levels=levels)
    figure = fan_chart(frame)
    assert _band_gids(figure) == [f"band {band} 2023-01" for band in bands]
    medians = [line for line in figure.axes[0].lines if line.get_gid().startswith("median")]
    assert len(medians) == (0.5 in levels)


def test_an_unpaired_level_is_left_out_of_the_bands_and_the_legend() -> None:
    frame, _ = evaluation(("OU_A",), n_splits=1, levels=(0.05, 0.1, 0.5, 0.9))
    assert _legend(fan_chart(frame)) == ["10\u201390%", "median", "split period"]


def test_levels_a_rounding_error_apart_still_pair() -> None:
    levels = np.array([0.1, 0.3, 0.7000000000000001, 0.9])
    assert derive_bands(levels) == [(0.1, 0.9), (0.3, 0.7000000000000001)]


@pytest.mark.parametrize("levels", [(0.5, 0.9), (0.1, 0.25, 0.5), (0.05, 0.9)])
def test_no_symmetric_pair_is_a_clear_error(levels) -> None:
    frame, _ = evaluation(("OU_A",), n_splits=1, levels=levels)
    present = ", ".join(f"{q:g}" for q in levels)
    with pytest.raises(ValueError, match=rf"\({present}\).*symmetric pair.*0\.1 and 0\.9"):
        fan_chart(frame)


def test_compare_pairs_the_levels_both_frames_have() -> None:
    frame_a, _ = evaluation(("OU_A",), n_splits=1, levels=(0.05, 0.1, 0.5, 0.9, 0.95))
    frame_b, _ = evaluation(("OU_A",), n_splits=1, levels=(0.1, 0.5, 0.9, 0.95))
    figure = compare_chart(frame_a, frame_b, labels=("a", "b"))
    gids = [c.get_gid() for c in figure.axes[0].collections]
    assert gids == ["a: band 0.1-0.9 2023-01", "b: band 0.1-0.9 2023-01"]


BAD_BANDS = [
    ([0.1, 0.9], r"quantile_bands must hold \(low, high\) pairs.*not single levels: 0\.1"),
    ((0.1, 0.9), r"quantile_bands must hold \(low, high\) pairs.*not single levels: 0\.1"),
    ("0.1-0.9", r"quantile_bands must be a list of \(low, high\) pairs"),
    (0.9, r"quantile_bands must be a list of \(low, high\) pairs"),
    ([], r"quantile_bands is empty"),
    ([(0.1, 0.5, 0.9)], r"quantile_bands: \(0\.1, 0\.5, 0\.9\) is not a \(low, high\) pair"),
    ([(0.1, "0.9")], r"quantile_bands: level '0\.9' of \(0\.1, '0\.9'\) is not a number"),
    ([(10, 90)], r"quantile_bands: level 10 of \(10, 90\) is outside \[0, 1\].*0\.9, not 90"),
    ([(-0.1, 0.9)], r"quantile_bands: level -0\.1 of \(-0\.1, 0\.9\) is outside \[0, 1\]"),
    ([(0.5, 0.5)], r"quantile_bands: the band \(0\.5, 0\.5\) has no width"),
    ([(0.05, 0.9)], r"quantile_bands: level\(s\) 0\.05 of the band \(0\.05, 0\.9\) are not"),
    ([(0.05, 0.95)], r"level\(s\) 0\.05, 0\.95 of .* the frame's quantiles \(0\.1, 0\.25, 0\.5"),
]


@pytest.mark.parametrize(("bands", "message"), BAD_BANDS)
def test_fan_chart_rejects_bad_quantile_bands(bands, message: str) -> None:
    frame, _ = evaluation(("OU_A",), n_splits=1)
    with pytest.raises(ValueError, match=message):
        fan_chart(frame, quantile_bands=bands)


@pytest.mark.parametrize(("bands", "message"), BAD_BANDS[:-1])
def test_compare_chart_rejects_bad_quantile_bands(bands, message: str) -> None:
    frame, _ = evaluation(("OU_A",), n_splits=1)
    with pytest.raises(ValueError, match=message):
        compare_chart(frame, frame, quantile_bands=bands)


def test_compare_names_the_levels_both_evaluations_have() -> None:
    frame_a, _ = evaluation(("OU_A",), n_splits=1, levels=(0.05, 0.1, 0.5, 0.9, 0.95))
    frame_b, _ = evaluation(("OU_A",), n_splits=1)
    with pytest.raises(ValueError, match=r"0\.05, 0\.95 .* both evaluations have \(0\.1, 0\.5"):
        compare_chart(frame_a, frame_b, quantile_bands=[(0.05, 0.95)])


def test_chosen_bands_are_nested_outermost_first_and_may_be_asymmetric() -> None:
    frame, _ = evaluation(("OU_A",), n_splits=1)
    nested = fan_chart(frame, quantile_bands=[[0.25, 0.75], np.array([0.9, 0.1])])
    assert _band_gids(nested) == ["band 0.1-0.9 2023-01", "band 0.25-0.75 2023-01"]
    upper = fan_chart(frame, quantile_bands=[(0.5, 0.9)])
    assert _band_gids(upper) == ["band 0.5-0.9 2023-01"]
