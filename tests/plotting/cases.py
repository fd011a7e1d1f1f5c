"""Deterministic synthetic evaluations for the plotting tests and their baseline images."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.testing import set_font_settings_for_testing, set_reproducibility_for_testing

from chaplab.frames import actuals_to_frame, entries_to_frame, format_period

LEVELS = (0.1, 0.25, 0.5, 0.75, 0.9)
Z_SCORES = (-1.2816, -0.6745, 0.0, 0.6745, 1.2816)
OUTER_Z_SCORES = {0.05: -1.6449, 0.95: 1.6449}


def periods(count: int, weekly: bool, start: pd.Period | None = None) -> list[str]:
    """``count`` consecutive periods as the wire writes them, from ``start`` (by default
    2022-W48 or 2021-01)."""
    if start is None:
        start = pd.Period("2022-11-28", "W-SUN") if weekly else pd.Period("2021-01", "M")
    return [format_period(start + i) for i in range(count)]


def evaluation(
    org_units: Sequence[str] = ("OU_A", "OU_B"),
    n_splits: int = 3,
    horizon: int = 3,
    history: int = 24,
    weekly: bool = False,
    levels: Sequence[float] = LEVELS,
    start: pd.Period | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(evaluation frame, actual cases frame): seasonal counts, forecasts widening with horizon;
    actual cases from ``start`` (see :func:`periods`), the first split ``history`` periods on.
    A split period is its first forecast period (horizon 1), as on the wire: its forecasts
    start from the cases of the period before it."""
    rng = np.random.default_rng(7)
    labels = periods(history + n_splits + horizon, weekly, start)
    z = dict(zip(LEVELS, Z_SCORES, strict=True)) | OUTER_Z_SCORES
    entries: list[dict] = []
    actuals: list[dict] = []
    for number, org_unit in enumerate(org_units):
        level = 30 + 10 * number
        truth = level * (1 + 0.5 * np.sin(np.arange(len(labels)) / 12 * 2 * np.pi))
        truth = np.round(np.maximum(truth + rng.normal(0, 3, len(labels)), 0))
        actuals += [
            {"pe": pe, "ou": org_unit, "value": float(v)}
            for pe, v in zip(labels, truth, strict=True)
        ]
        for split in range(history, history + n_splits):
            centre = truth[split - 1]
            for step in range(1, horizon + 1):
                for q in levels:
                    entries.append(
                        {
                            "orgUnit": org_unit,
                            "splitPeriod": labels[split],
                            "period": labels[split + step - 1],
                            "quantile": q,
                            "value": float(max(centre + z[q] * 4 * step, 0)),
                        }
                    )
    return entries_to_frame(entries), actuals_to_frame({"data": actuals})


@contextmanager
def image_style() -> Iterator[None]:
    """Default rcParams with the fonts and hinting matplotlib's own image tests use."""
    with mpl.rc_context():
        mpl.rcdefaults()
        set_font_settings_for_testing()
        set_reproducibility_for_testing()
        yield
