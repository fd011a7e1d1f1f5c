"""Render docs/images/fan_chart.png from synthetic weekly entries.

Run ``python docs/images/make_fan_chart.py``.

Deterministic (fixed seed): four districts, three weekly splits around the turn of the year,
forecast quantiles that widen with the horizon, against the cases that really happened.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

from chaplab.frames import (  # noqa: E402
    actuals_to_frame,
    entries_to_frame,
    format_period,
    parse_periods,
)
from chaplab.plotting import fan_chart  # noqa: E402

QUANTILES = {0.1: -1.2816, 0.25: -0.6745, 0.5: 0.0, 0.75: 0.6745, 0.9: 1.2816}
DISTRICTS = {"Bo": 60.0, "Kenema": 45.0, "Makeni": 30.0, "Port Loko": 20.0}
HORIZON = 4


def synthetic(seed: int = 3) -> tuple[list[dict], dict]:
    """Wire entries and an actual-cases payload, as the service would send them."""
    rng = np.random.default_rng(seed)
    first = parse_periods(["2023W27"])[0]
    weeks = [format_period(first + i) for i in range(40)]
    entries: list[dict] = []
    data: list[dict] = []
    for district, level in DISTRICTS.items():
        season = 1 + 0.6 * np.sin((np.arange(len(weeks)) - 10) / 52 * 2 * np.pi * 2)
        truth = np.round(rng.poisson(level * season).astype(float))
        data += [
            {"pe": pe, "ou": district, "value": value}
            for pe, value in zip(weeks, truth, strict=True)
        ]
        for split in (26, 30, 34):
            recent = truth[split - 3 : split + 1].mean()
            for step in range(1, HORIZON + 1):
                spread = np.sqrt(recent) * (0.8 + 0.45 * step)
                entries += [
                    {
                        "orgUnit": district,
                        "splitPeriod": weeks[split],
                        "period": weeks[split + step],
                        "quantile": q,
                        "value": max(recent + z * spread, 0.0),
                    }
                    for q, z in QUANTILES.items()
                ]
    return entries, {"featureId": "disease_cases", "dhis2Id": "disease_cases", "data": data}


def main() -> None:
    entries, payload = synthetic()
    figure = fan_chart(
        entries_to_frame(entries),
        actuals_to_frame(payload),
        title="Weekly backtest, three splits (synthetic data)",
    )
    target = Path(__file__).with_name("fan_chart.png")
    figure.savefig(target, dpi=110, metadata={"Software": None})
    print(target)


if __name__ == "__main__":
    main()
