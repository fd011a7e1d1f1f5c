"""The page side of the measuring harness (tests/readability.py) in Chromium: a table whose
model name runs into the next column is named, a name cut with an ellipsis and a title is not,
and a name cut without either is."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext

from readability import TEXT_BOXES_JS, crowded, cut_texts, overflowing, page_text_boxes

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
