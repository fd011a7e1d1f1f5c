from __future__ import annotations

from pathlib import Path

import pytest
from matplotlib.testing.compare import compare_images

from .cases import image_style
from .image_cases import IMAGE_CASES

BASELINE = Path(__file__).with_name("baseline")


@pytest.mark.parametrize("name", sorted(IMAGE_CASES))
def test_chart_matches_baseline_image(name: str, tmp_path: Path) -> None:
    with image_style():
        IMAGE_CASES[name]().savefig(tmp_path / f"{name}.png", dpi=72)
    difference = compare_images(str(BASELINE / f"{name}.png"), str(tmp_path / f"{name}.png"), tol=5)
    assert difference is None, difference
