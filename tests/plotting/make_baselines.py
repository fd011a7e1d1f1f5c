"""Render the baseline images of test_images.py: ``python -m tests.plotting.make_baselines``.

Run it again only when a chart changes on purpose, and look at the new images before committing.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from .cases import image_style  # noqa: E402
from .image_cases import IMAGE_CASES  # noqa: E402

BASELINE = Path(__file__).with_name("baseline")


def main() -> None:
    BASELINE.mkdir(exist_ok=True)
    for name, draw in IMAGE_CASES.items():
        with image_style():
            figure = draw()
            figure.savefig(BASELINE / f"{name}.png", dpi=72)
        print(BASELINE / f"{name}.png")


if __name__ == "__main__":
    main()
