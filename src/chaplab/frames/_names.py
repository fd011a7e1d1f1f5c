"""Org-unit names from a dataset's GeoJSON, and the ``org_unit_name`` column beside ``org_unit``.

A dataset's GeoJSON FeatureCollection holds one feature per org unit: the feature's ``id`` (or
``properties.id``) is the org unit's id and a property such as ``name`` its name. People read
names, so frames get an ``org_unit_name`` column and charts show it; the ids stay the key.

Two places may share a name (two districts called ``Bo``). Their labels then say which:
``Bo (Southern)`` when the parent names (``parentName``) tell them apart, ``Bo (O6uvpzGd5pu)``
otherwise. :func:`org_unit_labels` is that rule, written once.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
import pandas as pd

from chaplab.errors import ArgumentError
from chaplab.frames._tidy import ORG_UNIT
from chaplab.vocabulary import feature_id

ORG_UNIT_NAME = "org_unit_name"

NAME_KEYS = ("name", "displayName", "shortName", "NAME", "Name", "label")
"""Feature properties that hold an org unit's name, the first one present wins."""
PARENT_KEYS = ("parentName", "parent_name", "parentDisplayName")
"""Feature properties that hold the name of the org unit's parent (a region, a province)."""


def org_unit_names(geojson: Any) -> dict[str, str]:
    """Org-unit id -> the label people read, from a GeoJSON FeatureCollection.

    ``geojson`` is a dict, JSON text or bytes (chap-core sends the GeoJSON of a dataset as a
    string), or a pydantic model of one. A feature without a name is labelled by its id; a
    feature without an id is left out. Labels are unique (see :func:`org_unit_labels`).
    """
    names: dict[str, str] = {}
    parents: dict[str, str | None] = {}
    for position, feature in enumerate(_features(geojson)):
        if not isinstance(feature, Mapping):
            raise ArgumentError(f"geojson: feature {position} is not an object")
        properties = feature.get("properties") or {}
        if not isinstance(properties, Mapping):
            raise ArgumentError(
                f"geojson: feature {position} has properties that are not an object"
            )
        org_unit = feature_id(feature)
        if org_unit is None:
            continue
        names[org_unit] = _first_text(properties, NAME_KEYS) or org_unit
        parents[org_unit] = _first_text(properties, PARENT_KEYS)
    return org_unit_labels(names, parents)


def org_unit_labels(
    names: Mapping[str, str], parents: Mapping[str, str | None] | None = None
) -> dict[str, str]:
    """Id -> name, where every name that two or more ids share says which place it is.

    A shared name gets its parent's name in brackets when that tells the places apart, else
    the id: ``{"a": "Bo", "b": "Bo"}`` -> ``{"a": "Bo (a)", "b": "Bo (b)"}``. A label that would
    still clash with another place's name (a place really called ``Bo (a)``) gets the id too.
    """
    parents = parents or {}
    by_name: defaultdict[str, list[str]] = defaultdict(list)
    for org_unit, name in names.items():
        by_name[name].append(org_unit)
    labels: dict[str, str] = {}
    for name, org_units in by_name.items():
        if len(org_units) == 1:
            labels[org_units[0]] = name
            continue
        qualifiers = [parents.get(org_unit) for org_unit in org_units]
        by_parent = None not in qualifiers and len(set(qualifiers)) == len(qualifiers)
        for org_unit, parent in zip(org_units, qualifiers, strict=True):
            labels[org_unit] = qualified(name, parent if by_parent else org_unit)
    counts = Counter(labels.values())
    return {
        org_unit: label if counts[label] == 1 else qualified(names[org_unit], org_unit)
        for org_unit, label in labels.items()
    }


def qualified(name: str, which: str | None) -> str:
    """A name with what tells it apart in brackets: ``Bo (Southern)``."""
    return f"{name} ({which})"


_QUALIFIED = re.compile(r"^(?P<name>.+) \((?P<which>[^()]+)\)$")
SUGGESTIONS = 3
"""At most this many close names are offered for an unknown org unit."""
LISTED = 8
"""At most this many org units are listed in an error."""


def frame_labels(*frames: pd.DataFrame | None) -> dict[str, str]:
    """Id -> label of every org unit of the frames, in the first frame's order: its
    ``org_unit_name`` where any frame has that column (the first frame that names an org unit
    wins), else its id."""
    given = [frame for frame in frames if frame is not None and ORG_UNIT in frame.columns]
    names: dict[str, str] = {}
    for frame in given:
        if ORG_UNIT_NAME in frame.columns:
            first = ~frame[ORG_UNIT].duplicated().to_numpy()  # one row per org unit
            labelled = (ORG_UNIT, ORG_UNIT_NAME)
            ids, given_names = (frame[column].to_numpy()[first] for column in labelled)
            for org_unit, label in zip(ids, given_names, strict=True):
                if pd.notna(label):
                    names.setdefault(str(org_unit), str(label))
    labels: dict[str, str] = {}
    for frame in given:
        for org_unit in map(str, pd.unique(frame[ORG_UNIT])):
            labels.setdefault(org_unit, names.get(org_unit, org_unit))
    return labels


def resolve_org_units(
    wanted: str | Iterable[str],
    labels: Mapping[str, str],
    argument: str = "org_units",
    where: str = "the frame",
) -> list[str]:
    """The ids of the org units ``wanted`` names, each given as its id or its name.

    ``labels`` maps every available id to its label (:func:`frame_labels`) of ``where`` (named
    in errors, with ``argument``). A name is matched
    as written, then without the bracket that tells shared names apart (``Bo`` for
    ``Bo (Southern)``), then ignoring case. A name that matches two places is an error that lists
    both; an unknown one an error with close names (``did you mean``) and a few of those there.
    """
    items = [wanted] if isinstance(wanted, str) else list(wanted)
    if not items:
        raise ArgumentError(
            f"{argument} is empty: name at least one org unit, or pass None for all"
        )
    return [_resolve_one(item, labels, f"{argument}: {{}}", where) for item in items]


def _resolve_one(item: Any, labels: Mapping[str, str], prefix: str, where: str) -> str:
    text = str(item).strip()
    if text in labels:
        return text
    for matches in _matches(text, labels):
        if len(matches) == 1:
            return matches[0]
        if matches:
            places = "; ".join(f"{labels[org_unit]!r} (id {org_unit})" for org_unit in matches)
            raise ArgumentError(
                prefix.format(f"{text!r} names {len(matches)} places in {where}: {places}; ")
                + "give the label or the id of the one you mean"
            )
    raise ArgumentError(
        prefix.format(f"{text!r} is not an org unit of {where}{_suggestions(text, labels)}")
    )


def _matches(text: str, labels: Mapping[str, str]) -> Iterable[list[str]]:
    """The ids matching ``text``, from the strictest kind of match to the loosest."""
    yield [org_unit for org_unit, label in labels.items() if label == text]
    yield [org_unit for org_unit, label in labels.items() if _base_name(label) == text]
    folded = text.casefold()
    yield [
        org_unit
        for org_unit, label in labels.items()
        if folded in (label.casefold(), _base_name(label).casefold(), org_unit.casefold())
    ]


def _base_name(label: str) -> str:
    """A label without the bracket that tells a shared name apart: ``Bo (Southern)`` -> ``Bo``."""
    match = _QUALIFIED.match(label)
    return match["name"] if match else label


def _suggestions(text: str, labels: Mapping[str, str]) -> str:
    """'; did you mean ...? It has ...' for an error about an unknown org unit."""
    by_key = {label.casefold(): label for label in labels.values()}
    by_key |= {org_unit.casefold(): org_unit for org_unit in labels}
    close = difflib.get_close_matches(text.casefold(), list(by_key), n=SUGGESTIONS, cutoff=0.6)
    shown = sorted(labels.values())
    more = f" and {len(shown) - LISTED} more" if len(shown) > LISTED else ""
    listed = f"has {', '.join(shown[:LISTED])}{more}"
    if not close:
        return f"; it {listed}"
    return f"; did you mean {' or '.join(repr(by_key[key]) for key in close)}? It {listed}"


def with_org_unit_names(frame: pd.DataFrame, names: Any) -> pd.DataFrame:
    """The frame with an ``org_unit_name`` column (categorical) right after ``org_unit``.

    ``names`` is a dataset's GeoJSON (anything :func:`org_unit_names` takes) or a mapping of
    org-unit id -> name (labelled by :func:`org_unit_labels`). An org unit without a name keeps
    its id as its name. An existing ``org_unit_name`` column is replaced.
    """
    if not isinstance(frame, pd.DataFrame) or ORG_UNIT not in frame.columns:
        raise ArgumentError("with_org_unit_names() needs a frame with an 'org_unit' column")
    labels = _labels(names)
    ids = frame[ORG_UNIT].astype("category")
    present = [str(org_unit) for org_unit in ids.cat.categories]
    categories = [labels.get(org_unit, org_unit) for org_unit in present]
    if len(set(categories)) < len(categories):  # a name that is also another org unit's id
        categories = [
            label if label == org_unit else qualified(label, org_unit)
            for org_unit, label in zip(present, categories, strict=True)
        ]
    column = pd.Categorical.from_codes(ids.cat.codes, categories=pd.Index(categories, dtype=str))
    named = frame.drop(columns=[ORG_UNIT_NAME], errors="ignore")
    named.insert(named.columns.get_loc(ORG_UNIT) + 1, ORG_UNIT_NAME, column)
    return named


def _labels(names: Any) -> dict[str, str]:
    """Id -> label from a GeoJSON or from a mapping of id -> name."""
    if isinstance(names, Mapping) and not _is_feature_collection(names):
        if not all(isinstance(name, str) for name in names.values()):
            raise ArgumentError("names must map org-unit ids to name strings, or be a GeoJSON")
        return org_unit_labels({str(key): name for key, name in names.items()})
    return org_unit_names(names)


def _is_feature_collection(document: Mapping[str, Any]) -> bool:
    return document.get("type") == "FeatureCollection" or "features" in document


def _features(geojson: Any) -> list[Any]:
    """The features of a FeatureCollection given as a dict, JSON text or bytes, or a model."""
    if hasattr(geojson, "model_dump"):
        geojson = geojson.model_dump(mode="json", by_alias=True)
    if isinstance(geojson, (str, bytes, bytearray)):
        try:
            geojson = orjson.loads(geojson)
        except orjson.JSONDecodeError as error:
            raise ArgumentError(f"geojson is not valid JSON: {error}") from None
    if not isinstance(geojson, Mapping) or not isinstance(geojson.get("features"), list):
        raise ArgumentError(
            "geojson must be a FeatureCollection: an object with a 'features' list, "
            f"got {type(geojson).__name__}"
        )
    features: list[Any] = geojson["features"]
    return features


def _first_text(properties: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    """The first of ``keys`` whose value is a non-empty string."""
    for key in keys:
        value = properties.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None
