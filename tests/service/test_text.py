"""The printable-name check: every Unicode control character refused with its position,
everything else accepted, and a refusal never remembered as a pass."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from chaplab.service.text import printable


def test_exactly_the_unicode_control_characters_are_refused() -> None:
    refused = []
    for code in range(sys.maxunicode + 1):
        character = chr(code)
        try:
            printable(f"OU{character}")
        except ValueError as error:
            assert f"{character!r} at position 2" in str(error)
            refused.append(character)
    assert refused == [
        chr(code) for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)) == "Cc"
    ]


@pytest.mark.parametrize("name", ["São Paulo", "Ḿbarara\u00a0East", "区-1", "OU_1 (north)"])
def test_names_in_any_script_are_printable(name: str) -> None:
    assert printable(name) == name
    assert printable(name) == name


def test_a_refused_name_is_refused_every_time() -> None:
    for _ in range(3):
        with pytest.raises(ValueError, match=r"'\\x1b' at position 2"):
            printable("OU\x1b[31m")
