"""Endemic thresholds from the same season in earlier years: the one rule of the embedded
service's thresholds route (``POST /v1/analytics/thresholds``) and of
``chaplab.scoring.endemic_thresholds``, so that the same cases give the same lines on both sides.

A target period's threshold comes from the values of its season (calendar month, or ISO week;
week 53 shares week 52's season, as :func:`chaplab.vocabulary.season_position` says) in the
years before the target's year (:func:`in_baseline`). Of those values:

- ``seasonal``: mean + k standard deviations (``ddof=1``) of the same season in every earlier
  year; NaN with fewer than two values.
- ``percentile``: the ``quantile`` of the same season in the ``baseline_years`` years before
  the target's year (every earlier year when None), interpolated linearly between order
  statistics (numpy's and pandas' default); NaN without a value.

The callers gather each target's values as a row of a ``(targets, values)`` matrix, NaN for
missing or left-out values (:func:`padded_rows` builds one from pairs). numpy and
``chaplab.vocabulary`` only, so that the client side imports it without the service extra.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from chaplab.vocabulary import season_position

STRATEGIES = ("seasonal", "percentile")


def year_and_season(periods: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
    """The year (a week's ISO year) and season position of each wire period (``202203``,
    ``2022W10``): the year a threshold counts back from and the season it matches."""
    labels = list(periods)
    years = np.array([int(period[:4]) for period in labels], dtype=np.int64)
    seasons = np.array([season_position(period) for period in labels], dtype=np.int64)
    return years, seasons


def in_baseline(
    seen_years: np.ndarray, target_years: np.ndarray | int, baseline_years: int | None
) -> np.ndarray:
    """Whether a value seen in ``seen_years`` counts toward a threshold of a period of
    ``target_years`` (broadcast against each other): an earlier year, one of the
    ``baseline_years`` last ones when given."""
    earlier = np.asarray(seen_years < target_years)
    if baseline_years is None:
        return earlier
    return earlier & np.asarray(seen_years >= np.subtract(target_years, baseline_years))


def padded_rows(rows: np.ndarray, values: np.ndarray, count: int) -> np.ndarray:
    """A ``(count, longest)`` matrix holding ``values[i]`` in row ``rows[i]``, in their order,
    NaN after each row's last value."""
    row_index = np.asarray(rows, dtype=np.int64)
    order = np.argsort(row_index, kind="stable")
    row_index = row_index[order]
    sizes = np.bincount(row_index, minlength=count)
    starts = np.cumsum(sizes) - sizes
    matrix = np.full((count, int(sizes.max(initial=0))), np.nan)
    matrix[row_index, np.arange(len(row_index)) - starts[row_index]] = np.asarray(
        values, dtype=np.float64
    )[order]
    return matrix


def threshold_lines(history: np.ndarray, strategy: str, lines: Sequence[float]) -> np.ndarray:
    """Threshold lines, shape ``(targets, lines)``, from each target's same-season values
    (``history``: targets x values, NaN for missing): one line per std multiplier
    (``seasonal``) or quantile (``percentile``); NaN where there are too few values."""
    parameters = np.asarray(lines, dtype=np.float64)
    if strategy == "seasonal":
        return _seasonal(history, parameters)
    if strategy == "percentile":
        return _percentile(history, parameters)
    raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")


def _seasonal(history: np.ndarray, multipliers: np.ndarray) -> np.ndarray:
    """mean + k * std (``ddof=1``) per row; NaN for a row with fewer than two values."""
    present = ~np.isnan(history)
    count = present.sum(axis=1)
    filled = np.where(present, history, 0.0)
    mean = filled.sum(axis=1) / np.maximum(count, 1)
    squares = np.where(present, (history - mean[:, None]) ** 2, 0.0).sum(axis=1)
    std = np.sqrt(squares / np.maximum(count - 1, 1))
    lines: np.ndarray = mean[:, None] + multipliers[None, :] * std[:, None]
    lines[count < 2] = np.nan
    return lines


def _percentile(history: np.ndarray, quantiles: np.ndarray) -> np.ndarray:
    """The quantiles of each row's values (linear between order statistics); NaN for a row
    without a value."""
    ordered = np.sort(history, axis=1)  # NaN last
    count = (~np.isnan(history)).sum(axis=1)
    if ordered.shape[1] == 0:
        return np.full((len(history), len(quantiles)), np.nan)
    position = quantiles[None, :] * np.maximum(count - 1, 0)[:, None]
    lower = np.floor(position).astype(np.int64)
    upper = np.minimum(lower + 1, np.maximum(count - 1, 0)[:, None])
    low = np.take_along_axis(ordered, lower, axis=1)
    high = np.take_along_axis(ordered, upper, axis=1)
    lines: np.ndarray = low + (high - low) * (position - lower)
    lines[count == 0] = np.nan
    return lines
