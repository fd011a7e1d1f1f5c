"""Place names as people write them, from the upper-case spelling of official lists.

Every word is capitalised (also after a hyphen or an apostrophe) except a language's particles
after the first word; Roman numerals stay upper case:

- Portuguese (``da``, ``das``, ``de``, ``del``, ``do``, ``dos``, ``e``): ``SÃO JOÃO DEL REI`` ->
  ``São João del Rei``, ``NÃO-ME-TOQUE`` -> ``Não-Me-Toque``, ``ALVORADA D'OESTE`` ->
  ``Alvorada D'Oeste``, ``PIO IX`` -> ``Pio IX``;
- Spanish (``de``, ``del``, ``la``, ``las``, ``los``, ``y``): ``SAN JUAN DE LA VIRGEN`` ->
  ``San Juan de la Virgen``, ``VILLA EL SALVADOR`` -> ``Villa El Salvador``.
"""

from __future__ import annotations

import re

PORTUGUESE = frozenset({"da", "das", "de", "del", "do", "dos", "e"})
SPANISH = frozenset({"de", "del", "la", "las", "los", "y"})
_ROMAN_NUMERAL = re.compile(r"^(?=[IVXLC]+$)C{0,3}(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")
_WORD_PARTS = re.compile(r"([-'’])")


def place_name(text: str, particles: frozenset[str]) -> str:
    """``text`` (any case) written as a place name of the language whose ``particles`` stay
    lower case."""
    words = text.split()
    return " ".join(
        _word(word, first=index == 0, particles=particles) for index, word in enumerate(words)
    )


def _word(word: str, first: bool, particles: frozenset[str]) -> str:
    if _ROMAN_NUMERAL.match(word.upper()):
        return word.upper()
    lower = word.lower()
    if not first and lower in particles:
        return lower
    return "".join(part.capitalize() for part in _WORD_PARTS.split(lower))
