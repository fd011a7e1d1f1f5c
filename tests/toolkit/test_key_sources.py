"""Key sources, their priority, and the startup failures when no key is found (spec 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from asgi_test_client import TestClient
from chaplab.toolkit import ServiceBuilder

from .helpers import KEY_A, KEY_B, make_builder

ENV = "TOOLKIT_TEST_KEYS"


def status_with(client: TestClient, key: str) -> int:
    return client.get("/v1/items", headers={"X-API-Key": key}).status_code


def test_api_keys_list_is_a_key_source(authed) -> None:
    client = authed(api_keys=[KEY_A])
    assert status_with(client, KEY_A) == 200


def test_key_file_has_one_key_per_line_with_comments_blank_lines_and_spaces(
    authed, tmp_path: Path
) -> None:
    key_file = tmp_path / "keys"
    key_file.write_text(f"# production keys\n\n   {KEY_A}   \n  # {KEY_B}\n")
    client = authed(api_keys=None, api_key_file=str(key_file))
    assert status_with(client, KEY_A) == 200
    assert status_with(client, KEY_B) == 401
    assert status_with(client, "# production keys") == 401


def test_environment_variable_holds_comma_separated_keys(
    authed, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, f"{KEY_A},{KEY_B}")
    client = authed(api_keys=None, env_var=ENV)
    assert status_with(client, KEY_A) == 200
    assert status_with(client, KEY_B) == 200


def test_default_environment_variable_is_service_api_keys(
    authed, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SERVICE_API_KEYS", KEY_B)
    client = authed(api_keys=None)
    assert status_with(client, KEY_B) == 200


def test_api_keys_win_over_key_file_and_environment(
    authed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key_file = tmp_path / "keys"
    key_file.write_text(KEY_B)
    monkeypatch.setenv(ENV, KEY_B)
    client = authed(api_keys=[KEY_A], api_key_file=key_file, env_var=ENV)
    assert status_with(client, KEY_A) == 200
    assert status_with(client, KEY_B) == 401


def test_key_file_wins_over_environment(
    authed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key_file = tmp_path / "keys"
    key_file.write_text(KEY_A)
    monkeypatch.setenv(ENV, KEY_B)
    client = authed(api_keys=None, api_key_file=key_file, env_var=ENV)
    assert status_with(client, KEY_A) == 200
    assert status_with(client, KEY_B) == 401


def test_empty_api_keys_list_fails_at_build() -> None:
    with pytest.raises(ValueError, match=r"^No API keys configured"):
        make_builder().with_auth(api_keys=[]).build()


def test_empty_api_keys_list_is_not_replaced_by_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SERVICE_API_KEYS", KEY_A)
    with pytest.raises(ValueError, match=r"^No API keys configured"):
        make_builder().with_auth(api_keys=[]).build()


def test_key_file_without_keys_fails_at_build(tmp_path: Path) -> None:
    key_file = tmp_path / "keys"
    key_file.write_text("# only a comment\n\n   \n")
    with pytest.raises(ValueError, match=r"^No API keys configured"):
        make_builder().with_auth(api_key_file=key_file).build()


def test_missing_key_file_fails_at_build_naming_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "keys"
    with pytest.raises(FileNotFoundError) as raised:
        make_builder().with_auth(api_key_file=str(missing)).build()
    assert str(raised.value) == f"API key file not found: {missing}"


def test_key_file_that_is_not_utf8_fails_at_build_naming_the_path(tmp_path: Path) -> None:
    key_file = tmp_path / "keys"
    key_file.write_bytes(KEY_A.encode() + b"\n\xff\xfe\n")
    with pytest.raises(ValueError) as raised:
        make_builder().with_auth(api_key_file=key_file).build()
    assert str(raised.value).startswith(f"API key file {key_file} is not UTF-8 text")


def test_key_file_that_is_a_folder_fails_at_build_naming_the_path(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as raised:
        make_builder().with_auth(api_key_file=tmp_path).build()
    assert str(raised.value) == f"API key file {tmp_path} is a folder, not a file"


def test_empty_key_file_path_fails_at_build() -> None:
    with pytest.raises(ValueError, match="^API key file path is empty: api_key_file must name"):
        make_builder().with_auth(api_key_file="").build()


def test_unset_environment_variable_fails_at_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    with pytest.raises(ValueError) as raised:
        make_builder().with_auth(env_var=ENV).build()
    assert str(raised.value) == f"No API keys found in {ENV}"


def test_environment_variable_of_only_commas_fails_at_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV, " , ,")
    with pytest.raises(ValueError, match=f"^No API keys found in {ENV}$"):
        make_builder().with_auth(env_var=ENV).build()


def test_a_single_string_for_api_keys_is_refused() -> None:
    with pytest.raises(TypeError, match="api_keys must be a list"):
        ServiceBuilder(title="S").with_auth(api_keys=KEY_A)


def test_key_format_is_not_enforced(authed) -> None:
    client = authed(api_keys=["not-the-recommended-format"])
    assert status_with(client, "not-the-recommended-format") == 200
