"""A request's observations as columns: what every route taking observations receives.

A country's upload holds hundreds of thousands of observations. Validated one model at a time
they cost seconds and a gigabyte; read as columns (:func:`chaplab.jsonrows.regular_columns`)
they cost a few bytes each. A request field typed :data:`Observations` is described in
``/openapi.json`` as the list of :class:`~chaplab.service.wire.common.Observation` it is on the
wire, and accepts either that list (validated as models, then made columns) or columns already
read from the body (``routes.dependencies.ObservationsRoute``), checked by the same rules: each
distinct feature name and org unit is an identifier, each value a finite number or null. Columns
that break a rule are validated as models after all, so the error names the observation as
it always did.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

import numpy as np
import orjson
from pydantic import Field, GetCoreSchemaHandler, TypeAdapter, ValidationError
from pydantic_core import core_schema

from chaplab.jsonrows import Coded, Column, member_array, regular_columns, replaced
from chaplab.service.wire.common import Identifier, Observation

MEMBERS = ("observations", "providedData", "provided_data")
"""The request members that may hold observations, as the request models name them."""
KEYS = ("featureName", "orgUnit", "period", "value")
"""An observation's members as the wire spells them."""
SNAKE_KEYS = ("feature_name", "org_unit", "period", "value")
"""The same in snake_case, which requests may use too."""
_IDENTIFIER: TypeAdapter[str] = TypeAdapter(Identifier)


@dataclass(frozen=True)
class ObservationColumns:
    """Observations as columns: each one's feature, org unit and period as codes into their
    distinct strings (in order of first appearance), and its value (NaN where it is null).
    ``source`` is the JSON array they were read from, if they were."""

    wire_item: ClassVar[type[Observation]] = Observation
    """What each item of the list is on the wire (``chaplab.toolkit.field_hints`` names a
    misspelt member by it)."""

    feature_names: Coded
    org_units: Coded
    periods: Coded
    values: np.ndarray
    source: memoryview | None = field(default=None, compare=False, repr=False)

    def __len__(self) -> int:
        return int(self.values.size)

    def cell(self, index: int) -> tuple[str, str, str]:
        """The feature, org unit and period of observation ``index``."""
        return (
            self.feature_names.uniques[int(self.feature_names.codes[index])],
            self.org_units.uniques[int(self.org_units.codes[index])],
            self.periods.uniques[int(self.periods.codes[index])],
        )

    @classmethod
    def of(cls, observations: Sequence[Observation]) -> ObservationColumns:
        """Columns of validated observations."""
        return cls(
            _coded([o.feature_name for o in observations]),
            _coded([o.org_unit for o in observations]),
            _coded([o.period for o in observations]),
            np.array([o.value for o in observations], dtype=np.float64),  # None -> NaN
        )

    @classmethod
    def read(cls, columns: dict[str, Column], source: memoryview) -> ObservationColumns | None:
        """Columns read from a JSON array of observations (:data:`KEYS` or :data:`SNAKE_KEYS`,
        as ``regular_columns`` answers them), or None when it holds other members."""
        for keys in (KEYS, SNAKE_KEYS):
            feature, org_unit, period, value = (columns.get(key) for key in keys)
            if (
                isinstance(feature, Coded)
                and isinstance(org_unit, Coded)
                and isinstance(period, Coded)
                and isinstance(value, np.ndarray)
            ):
                return cls(feature, org_unit, period, value, source)
        return None

    def follows_the_rules(self) -> bool:
        """Whether every observation would pass :class:`Observation`'s validation: the
        distinct feature names and org units are identifiers, and no value is infinite (JSON
        cannot write NaN: a NaN is a null)."""
        try:
            for text in (*self.feature_names.uniques, *self.org_units.uniques):
                _IDENTIFIER.validate_python(text)
        except ValidationError:
            return False
        return len(self) > 0 and not bool(np.isinf(self.values).any())

    def rows(self) -> list[Any]:
        """The observations as the JSON objects they were read from."""
        assert self.source is not None, "columns made from models are validated already"
        rows: list[Any] = orjson.loads(self.source)
        return rows

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        """Validated as a non-empty list of :class:`Observation` (and described so), then made
        columns; columns read from the body are taken as they are when they follow the rules."""
        as_models = handler.generate_schema(Annotated[list[Observation], Field(min_length=1)])
        as_columns = core_schema.no_info_after_validator_function(cls.of, as_models)
        return core_schema.no_info_wrap_validator_function(_read_columns, as_columns)


def _read_columns(value: Any, validate: Callable[[Any], ObservationColumns]) -> Any:
    if isinstance(value, ObservationColumns):
        if value.source is None or value.follows_the_rules():
            return value
        value = value.rows()
    return validate(value)


def _coded(values: list[str]) -> Coded:
    """Strings as codes into their distinct values, in order of first appearance."""
    index: dict[str, int] = {}
    codes = np.fromiter(
        (index.setdefault(value, len(index)) for value in values), np.intp, len(values)
    )
    return Coded(codes, list(index))


def body_with_columns(body: bytes) -> dict[str, Any] | None:
    """A JSON object body parsed with its observations member (one of :data:`MEMBERS`) read as
    :class:`ObservationColumns`, when that member is a regularly laid out array (see
    :mod:`chaplab.jsonrows`) of observations spelled :data:`KEYS` or :data:`SNAKE_KEYS`; None
    for any other body, which is parsed in full."""
    found = member_array(body, MEMBERS)
    if found is None:
        return None
    key, start, end = found
    source = memoryview(body)[start:end]
    for keys in (KEYS, SNAKE_KEYS):
        columns = regular_columns(source, keys[:3], keys[3:])
        if columns is not None:
            break
    else:
        return None
    observations = ObservationColumns.read(columns, source)
    parsed = replaced(body, key, start, end) if observations is not None else None
    if parsed is None:
        return None
    parsed[key] = observations
    return parsed
