"""Choosing places by name: a state of a table, the org units of a parent in a GeoJSON."""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from chaplab.errors import ArgumentError, ArgumentTypeError
from chaplab.vocabulary import feature_id


def match_name(given: str, known: Iterable[str], argument: str, where: str) -> str:
    """The name of ``known`` that ``given`` names, ignoring case and accents (``sao paulo``
    names ``São Paulo``); otherwise ArgumentError (a ValueError) naming ``argument``, with close
    names, or ArgumentTypeError (a TypeError) for no text."""
    names = sorted(set(known))
    if not isinstance(given, str):
        raise ArgumentTypeError(f"{argument} must be a name, got {type(given).__name__}")
    by_key = {folded(name): name for name in names}
    if folded(given) in by_key:
        return by_key[folded(given)]
    close = difflib.get_close_matches(folded(given), list(by_key), n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(repr(by_key[key]) for key in close)}? " if close else ""
    raise ArgumentError(
        f"{argument}: {given!r} is not one of {where}; {hint}they are {', '.join(names)}"
    )


def folded(text: str) -> str:
    """Lower case without accents: ``São Paulo`` -> ``sao paulo``."""
    decomposed = unicodedata.normalize("NFKD", text.strip().casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def org_units_of(geojson: Mapping[str, Any], parent: str) -> list[str]:
    """The ids of the GeoJSON's features whose ``parentName`` is ``parent`` (a state of
    :func:`~chaplab.datasets.dengue_brazil`'s GeoJSON, say), for ``org_units=`` of a chart or a
    frame: one state's panels out of a country's."""
    features = [f for f in geojson.get("features", []) if isinstance(f, Mapping)]
    parents = {str((f.get("properties") or {}).get("parentName")): f for f in features}
    chosen = match_name(parent, [p for p in parents if p != "None"], "parent", "the parents")
    ids = (
        feature_id(f) for f in features if (f.get("properties") or {}).get("parentName") == chosen
    )
    return [identifier for identifier in ids if identifier is not None]
