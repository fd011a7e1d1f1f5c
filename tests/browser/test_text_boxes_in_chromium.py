"""The page side of the measuring harness (tests/readability.py) in Chromium: a table whose
model name runs into the next column is named, a name cut with an ellipsis and a title is not,
and a name cut without either is."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext

from readability import (
    TEXT_BOXES_JS,
    crowded,
    cut_texts,
    overflowing,
    page_text_boxes,
    read_the_same,
)

PAGE = """
<style>
  table { table-layout: fixed; width: 300px; border-collapse: collapse; font: 14px sans-serif; }
  td { padding: 2px 4px; white-space: nowrap; }
  td.model { width: 100px; }
  td.cut { overflow: hidden; }
  td.ellipsis { overflow: hidden; text-overflow: ellipsis; }
</style>
<table id="evaluations">
  <tr><td class="model">regression_model</td><td>demo</td></tr>
  <tr><td class="model ellipsis" title="seasonal_median_model">seasonal_median_model</td>
      <td>Acre</td></tr>
  <tr><td class="model cut">seasonal_naive_model</td><td>Acre</td></tr>
  <tr><td class="model">naive <b>model</b></td><td>demo</td></tr>
</table>
"""


@pytest.mark.browser
def test_texts_running_out_of_their_cells_and_cut_ones_are_named(
    chromium: BrowserContext,
) -> None:
    page = chromium.new_page()
    try:
        page.set_content(PAGE)
        found = page.locator("#evaluations").evaluate(TEXT_BOXES_JS)
    finally:
        page.close()
    boxes = page_text_boxes(found)
    assert [box.text for box in boxes] == [
        "regression_model", "demo",
        "seasonal_median_model", "Acre",
        "seasonal_naive_model", "Acre",
        "naive", "model", "demo",
    ]  # fmt: skip
    (out,) = overflowing(boxes)
    assert out.startswith("'regression_model' (<td>) reaches out of its box:")
    assert "past the right" in out
    (overlap,) = crowded(boxes, 0)
    assert overlap.startswith("'regression_model' (<td>) and 'demo' (<td>) are -")
    assert cut_texts(found) == ["'seasonal_naive_model' (<td>) is cut without an ellipsis"]


NAMES = """
<style>
  div { width: 150px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
        font: 14px sans-serif; }
</style>
<div id="names">
  <div title="compare models/seasonal_median">compare models/seasonal_median</div>
  <div title="compare models/seasonal_naive">compare models/seasonal_naive</div>
  <div>naive_model</div>
</div>
"""


@pytest.mark.browser
def test_two_names_cut_to_the_same_characters_read_the_same(chromium: BrowserContext) -> None:
    page = chromium.new_page()
    try:
        page.set_content(NAMES)
        found = page.locator("#names").evaluate(TEXT_BOXES_JS)
    finally:
        page.close()
    shown = [item["shown"] for item in found]
    assert shown[0] == shown[1] and shown[0].endswith("…") and shown[2] == "naive_model"
    assert "compare models/seasonal_median".startswith(shown[0][:-1])
    assert cut_texts(found) == []  # each cut with an ellipsis and its title
    (same,) = read_the_same(found)
    assert same.startswith(
        "'compare models/seasonal_median' and 'compare models/seasonal_naive' read the same"
    )


WRAPPED = """
<div id="wrapped" style="width: 170px; font: 14px sans-serif; white-space: pre-wrap">
<b>naive_model on dengue Brazil (Acre)</b> <small>evaluation ·</small>
<span>No other evaluation shares places and split periods with it.</span></div>
"""


@pytest.mark.browser
def test_wrapped_texts_are_measured_line_by_line(chromium: BrowserContext) -> None:
    """A wrapped text is boxed line by line, without the spaces it breaks at: the text after it
    on its last line is not under it, and no line reaches out of the box."""
    page = chromium.new_page()
    try:
        page.set_content(WRAPPED)
        found = page.locator("#wrapped").evaluate(TEXT_BOXES_JS)
    finally:
        page.close()
    boxes = page_text_boxes(found)
    assert len([box for box in boxes if box.text.startswith("naive_model")]) == 1
    assert len(boxes) > 4  # the name, its kind and the sentence on several lines
    assert crowded(boxes, 0) == []
    assert overflowing(boxes) == []
