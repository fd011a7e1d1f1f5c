"""chaplab's scores of the hub's forecasts equal an independent computation (scoringrules) to
1e-9: WIS and its parts from quantile and sample output, and the RPS of pmf output.

scoringrules 0.10's own ``weighted_interval_score`` adds the median where the definition adds
its absolute error (tests/scoring/test_rules.py shows it), so the reference WIS is built from
its ``interval_score``, which follows the definition: (|y - m| / 2 + sum alpha_k / 2 IS_k) /
(K + 1/2).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scoringrules as sr

from chaplab import scoring
from chaplab.hubs import example_hub, read_forecasts, read_target_data

INC = "wk inc flu hosp"


def reference_wis(frame: pd.DataFrame, actuals: pd.DataFrame) -> pd.DataFrame:
    """WIS per target from scoringrules' interval scores."""
    keys = ["model", "org_unit", "split_period", "period"]
    wide = frame.pivot_table(index=keys, columns="quantile", values="value", observed=True)
    levels = wide.columns.to_numpy(dtype=np.float64)
    truth = actuals.set_index(["org_unit", "period"])["value"]
    observed = truth.reindex(
        pd.MultiIndex.from_arrays(
            [
                wide.index.get_level_values("org_unit").astype(str),
                wide.index.get_level_values("period"),
            ]
        )
    ).to_numpy()
    values = wide.to_numpy()
    lower = [i for i, q in enumerate(levels) if q < 0.5]
    upper = [len(levels) - 1 - i for i in lower]
    alphas = 2 * levels[lower]
    intervals = sr.interval_score(
        observed, values[:, lower], values[:, upper], alphas, backend="numpy"
    )
    median = values[:, levels.tolist().index(0.5)]
    wis = (0.5 * np.abs(observed - median) + intervals @ (alphas / 2)) / (len(alphas) + 0.5)
    return pd.DataFrame({"reference": wis}, index=wide.index).reset_index()


@pytest.mark.parametrize("kind", ["quantiles", "samples"])
def test_wis_of_the_hubs_forecasts_equals_scoringrules(kind: str) -> None:
    forecasts = getattr(read_forecasts(example_hub(), target=INC), kind)
    actuals = read_target_data(example_hub(), target=INC)
    actuals = actuals.assign(org_unit=actuals["org_unit"].astype(str))
    scores = scoring.score(forecasts, actuals)
    assert len(scores) == 3 * 5 * 4 * 4  # models x places x rounds x horizons
    expected = reference_wis(forecasts, actuals)
    merged = scores.astype({"model": str, "org_unit": str}).merge(
        expected.astype({"model": str, "org_unit": str}),
        on=["model", "org_unit", "split_period", "period"],
    )
    assert len(merged) == len(scores)
    np.testing.assert_allclose(merged["wis"], merged["reference"], rtol=0, atol=1e-9)
    parts = merged["dispersion"] + merged["overprediction"] + merged["underprediction"]
    np.testing.assert_allclose(parts, merged["wis"], rtol=0, atol=1e-9)


def test_rps_of_the_hubs_pmf_forecasts_equals_scoringrules() -> None:
    pmf = read_forecasts(example_hub(), target="wk flu hosp rate category").pmf
    observed = read_target_data(example_hub(), target="wk flu hosp rate category")
    scores = scoring.score_pmf(pmf, observed)
    assert len(scores) == 3 * 5 * 4 * 4
    keys = ["model", "org_unit", "split_period", "period"]
    wide = pmf.pivot_table(index=keys, columns="category", values="probability", observed=True)
    seen = observed.set_index(["org_unit", "period"])["category"].cat.codes
    position = seen.reindex(
        pd.MultiIndex.from_arrays(
            [wide.index.get_level_values("org_unit"), wide.index.get_level_values("period")]
        )
    ).to_numpy()
    reference = sr.rps_score(position + 1, wide.to_numpy(), backend="numpy")
    mine = scores.set_index(keys)["rps"].reindex(wide.index).to_numpy()
    np.testing.assert_allclose(mine, reference, rtol=0, atol=1e-9)
    assert (mine > 0).any() and (mine < 1e-6).any()
