"""Weekly frames print their weeks as people read them (``2020-W53``) wherever pandas writes
them as text, and stay pandas' weekly periods in everything else: arithmetic, sorting, grouping,
merging and comparing give what pandas' own ``Period[W-SUN]`` gives."""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest

from chaplab.frames import entries_to_frame, parse_periods, readable
from chaplab.scoring import ensemble, score
from chaplab.vocabulary import period_range

DATES = re.compile(r"\d{4}-\d{2}-\d{2}/\d{4}-\d{2}-\d{2}")
"""A week written as pandas writes its dates: ``2020-12-28/2021-01-03``."""
WEEKS = period_range("2020W50", "2021W03")  # across 2020, a year of 53 ISO weeks
LABELS = ["2020-W50", "2020-W51", "2020-W52", "2020-W53", "2021-W01", "2021-W02", "2021-W03"]


def evaluation_frame() -> pd.DataFrame:
    """Two splits of three weeks (2020W52 and 2020W53) of two org units, three quantiles."""
    entries = [
        {
            "orgUnit": org_unit,
            "splitPeriod": split,
            "period": period,
            "quantile": level,
            "value": 10.0 * level + index,
        }
        for org_unit in ("OU_A", "OU_B")
        for split in ("2020W52", "2020W53")
        for index, period in enumerate(period_range(split, "2021W03")[:3])
        for level in (0.1, 0.5, 0.9)
    ]
    return entries_to_frame(entries)


def actuals() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "org_unit": ["OU_A"] * len(WEEKS) + ["OU_B"] * len(WEEKS),
            "period": parse_periods(WEEKS * 2),
            "value": np.arange(2.0 * len(WEEKS)),
        }
    )


def shown(frame: pd.DataFrame | pd.Series | pd.Index) -> str:
    """Everything pandas shows of ``frame``: its text, HTML and CSV."""
    if isinstance(frame, pd.Index):
        frame = frame.to_frame()
    html = frame.to_frame()._repr_html_() if isinstance(frame, pd.Series) else frame._repr_html_()
    return "\n".join([repr(frame), str(html), frame.to_csv()])


def test_a_weekly_evaluation_frame_shows_iso_weeks_as_a_notebook_prints_it() -> None:
    frame = evaluation_frame()
    text = shown(frame)
    for label in ("2020-W52", "2020-W53", "2021-W01"):
        assert label in text
    assert not DATES.search(text)
    assert frame["period"].dtype == pd.PeriodDtype("W-SUN")
    assert list(frame["split_period"].astype(str).unique()) == ["2020-W52", "2020-W53"]
    months = entries_to_frame(
        [{"orgUnit": "A", "period": p, "quantile": 0.5, "value": 1.0} for p in ("202311", "202312")]
    )
    assert months["period"].astype(str).tolist() == ["2023-11", "2023-12"]


def test_a_frame_written_to_csv_reads_back_as_the_same_weeks() -> None:
    frame = evaluation_frame()
    read = pd.read_csv(io.StringIO(frame.to_csv(index=False)))
    assert sorted(set(read["period"])) == LABELS[2:6]
    assert parse_periods(read["period"]).equals(pd.PeriodIndex(frame["period"]))


def test_week_arithmetic_is_exact_across_a_53_week_year() -> None:
    frame = evaluation_frame()
    assert ((frame["period"] - frame["split_period"]).map(lambda o: o.n) + 1).tolist() == (
        frame["horizon"].tolist()
    )
    later = frame["period"] + 1
    after = dict(zip(frame["period"].astype(str), later.astype(str), strict=True))
    assert after == {
        "2020-W52": "2020-W53",
        "2020-W53": "2021-W01",
        "2021-W01": "2021-W02",
        "2021-W02": "2021-W03",
    }
    assert sorted(set((frame["period"] - 1).astype(str))) == LABELS[1:5]
    assert "2021-W03" in shown(later)


OPERATIONS: dict[str, Callable[[pd.DataFrame], pd.DataFrame | pd.Series | pd.Index]] = {
    "sort": lambda f: f.sort_values(["period", "org_unit"]),
    "select": lambda f: f[f["value"] > 5],
    "groupby": lambda f: f.groupby("period", observed=True)["value"].mean(),
    "groupby two keys": lambda f: f.groupby(["org_unit", "period"], observed=True)["value"].sum(),
    "set_index": lambda f: f.set_index(["org_unit", "period"]).sort_index(),
    "pivot_table": lambda f: f.pivot_table(
        index="period", columns="org_unit", values="value", observed=True
    ),
    "unstack": lambda f: f.set_index(["org_unit", "period"])["value"].unstack("period"),
    "merge": lambda f: f.merge(
        f[["org_unit", "period"]].drop_duplicates(), on=["org_unit", "period"]
    ),
    "concat": lambda f: pd.concat([f, f]),
    "shift": lambda f: f["period"].shift(1),
    "unique": lambda f: pd.Series(f["period"].unique()),
    "value_counts": lambda f: f["period"].value_counts().sort_index(),
    "drop_duplicates": lambda f: f.drop_duplicates("period"),
    "add": lambda f: f.assign(next_period=f["period"] + 1),
}


@pytest.mark.parametrize("operation", OPERATIONS, ids=list(OPERATIONS))
def test_pandas_operations_give_pandas_weeks_and_keep_printing_iso_weeks(operation: str) -> None:
    ours = actuals()
    plain = ours.assign(period=pd.PeriodIndex(pd.Series(ours["period"]).map(lambda p: p)))
    assert DATES.search(shown(plain))  # pandas' own weeks print their dates
    result, expected = OPERATIONS[operation](ours), OPERATIONS[operation](plain)
    if isinstance(result, pd.DataFrame):
        pd.testing.assert_frame_equal(result, expected)
    else:
        pd.testing.assert_series_equal(result, expected)
    text = shown(result)
    assert "-W5" in text and not DATES.search(text)


def test_weeks_that_print_as_iso_weeks_compare_and_match_with_pandas_own_weeks() -> None:
    ours = parse_periods(WEEKS)
    plain = pd.period_range("2020-12-07", periods=len(WEEKS), freq="W-SUN")
    assert "2020-W53" in shown(ours) and DATES.search(shown(plain))
    assert (pd.Series(ours) == pd.Series(plain)).all()
    assert pd.Series(ours).equals(pd.Series(plain)) and pd.Index(ours).equals(plain)
    assert pd.Series(ours).isin(plain[[0, 3]]).tolist() == [True, False, False, True] + [False] * 3
    assert pd.Series(plain).isin(pd.Series(ours)[1:2]).sum() == 1
    merged = pd.DataFrame({"period": plain, "x": 1}).merge(pd.DataFrame({"period": ours, "y": 2}))
    assert len(merged) == len(WEEKS)
    assert ours.searchsorted(plain[3]) == 3


def test_scores_ensembles_and_readable_tables_print_iso_weeks() -> None:
    frame = evaluation_frame()
    scored = score({"model": frame}, actuals())
    combined = ensemble({"a": frame, "b": frame})
    for result in (scored, combined, readable(frame)):
        text = shown(result)
        assert "2020-W53" in text and not DATES.search(text)


def test_strftime_still_writes_a_weeks_dates_when_asked() -> None:
    weeks = pd.Series(parse_periods(["2020W53"]))
    assert weeks.dt.strftime("%Y-%m-%d").tolist() == ["2021-01-03"]  # pandas: the week's end
    assert weeks.astype(str).tolist() == ["2020-W53"]
