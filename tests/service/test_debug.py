"""Debug entries: a note is stored and read back."""

from __future__ import annotations

import pytest

from chaplab.client import ChapClient, NotFoundError

pytestmark = pytest.mark.integration


def test_a_debug_entry_is_stored_and_read_back(client: ChapClient, unique: str) -> None:
    entry = client.create_debug_entry(f"hello {unique}", {"attempt": 1})
    assert client.get_debug_entry(entry.id).model_dump() == entry.model_dump()
    assert entry.message == f"hello {unique}" and entry.created is not None
    with pytest.raises(NotFoundError):
        client.get_debug_entry(987654)
    with pytest.raises(ValueError, match="message"):
        client.create_debug_entry("")
