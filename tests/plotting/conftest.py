from __future__ import annotations

from collections.abc import Iterator

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures() -> Iterator[None]:
    """Every test starts and ends without open figures."""
    yield
    plt.close("all")
