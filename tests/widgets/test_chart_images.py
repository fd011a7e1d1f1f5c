"""The panel's chart images: drawn with twice the pixels they are shown with, shown at the size
they were drawn for (never stretched to a box's width), hidden while empty."""

from __future__ import annotations

import io

import matplotlib.pyplot as plt
from PIL import Image

from chaplab.widgets._render import image_widget, png_bytes

DPI = 100  # the figure's, as chaplab's charts are drawn


def test_a_chart_is_drawn_sharp_and_shown_at_its_size() -> None:
    figure = plt.figure(figsize=(6.0, 2.5), dpi=DPI)
    figure.text(0.5, 0.5, "12%", fontsize=9)
    png = png_bytes(figure)
    plt.close(figure)
    assert Image.open(io.BytesIO(png)).size == (2 * 6 * DPI, round(2 * 2.5 * DPI))
    image = image_widget()
    assert image.layout.display == "none"
    image.value = png
    assert image.layout.display == ""
    assert image.layout.width == f"{6 * DPI}px"  # 600 CSS pixels, 1200 drawn
    assert image.layout.max_width == "100%" and image.layout.height == "auto"
    assert image.layout.align_self == "flex-start"  # a column box does not stretch it
    image.value = b""
    assert image.layout.display == "none" and image.layout.width is None
