"""Fixtures of the hub tests: chaplab's small copy of the hubverse's example hub, and writable
copies of it (CSV, or converted to parquet)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from chaplab.hubs import example_hub


@pytest.fixture
def hub(tmp_path: Path) -> Path:
    """A writable copy of the example hub (CSV model output)."""
    copy = tmp_path / "hub"
    shutil.copytree(example_hub(), copy)
    return copy


@pytest.fixture
def parquet_hub(hub: Path) -> Path:
    """The copy with its model output as parquet files and ``admin.json`` saying so."""
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    for file in sorted((hub / "model-output").glob("*/*.csv")):
        table = pa_csv.read_csv(
            file,
            convert_options=pa_csv.ConvertOptions(
                column_types={"location": "string", "output_type_id": "string"}
            ),
        )
        pq.write_table(table, file.with_suffix(".parquet"))
        file.unlink()
    admin = json.loads((hub / "hub-config/admin.json").read_text())
    admin["file_format"] = ["parquet"]
    (hub / "hub-config/admin.json").write_text(json.dumps(admin))
    return hub
