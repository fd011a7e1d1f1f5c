"""``_client.py`` is what ``_codegen`` writes from the resource modules, to the letter."""

from __future__ import annotations

from pathlib import Path

import pytest

from chaplab.client import _codegen


def test_the_checked_in_clients_are_generated_from_the_operations() -> None:
    assert _codegen.TARGET.read_text() == _codegen.render(), (
        "src/chaplab/client/_client.py is out of date: run python -m chaplab.client._codegen"
    )


def test_the_check_mode_fails_on_an_edited_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edited = tmp_path / "_client.py"
    edited.write_text(_codegen.render().replace("def list_datasets", "def list_datasetz"))
    monkeypatch.setattr(_codegen, "TARGET", edited)
    monkeypatch.setattr("sys.argv", ["_codegen", "--check"])
    with pytest.raises(SystemExit, match="out of date"):
        _codegen.main()
    monkeypatch.setattr("sys.argv", ["_codegen"])
    _codegen.main()
    assert edited.read_text() == _codegen.render()
