"""Portuguese place names as people write them, from the upper-case spelling of official lists.

``SÃO JOÃO DEL REI`` -> ``São João del Rei``, ``NÃO-ME-TOQUE`` -> ``Não-Me-Toque``,
``ALVORADA D'OESTE`` -> ``Alvorada D'Oeste``, ``RIO GRANDE DO NORTE`` -> ``Rio Grande do Norte``:
every word capitalised (also after a hyphen or an apostrophe) except the particles ``da``,
``das``, ``de``, ``del``, ``do``, ``dos`` and ``e`` after the first word; Roman numerals
(``PIO IX``) stay upper case.
"""

from __future__ import annotations

import re

PARTICLES = frozenset({"da", "das", "de", "del", "do", "dos", "e"})
_ROMAN_NUMERAL = re.compile(r"^(?=[IVXLC]+$)C{0,3}(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")
_WORD_PARTS = re.compile(r"([-'’])")


def place_name(text: str) -> str:
    """``text`` (any case) written as a Portuguese place name."""
    words = text.split()
    return " ".join(_word(word, first=index == 0) for index, word in enumerate(words))


def _word(word: str, first: bool) -> str:
    if _ROMAN_NUMERAL.match(word.upper()):
        return word.upper()
    lower = word.lower()
    if not first and lower in PARTICLES:
        return lower
    return "".join(part.capitalize() for part in _WORD_PARTS.split(lower))
