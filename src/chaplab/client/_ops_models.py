"""Model endpoints beyond the main table, as sans-IO operations (see ``_operations``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from chaplab.client._models import ModelSpec, ModelTemplate
from chaplab.client._operations import Operations, _require_id, _require_name, operation
from chaplab.client._steps import Operation

PERIOD_TYPES = ("any", "month", "week")


class ModelOperations(Operations):
    @operation
    def get_configured_model(self, model_id: int) -> Operation[ModelSpec]:
        """One configured model by id (archived ones too: see ``archived``)."""
        model_id = _require_id("model_id", model_id)
        return (yield from self._get(ModelSpec, f"/v1/crud/configured-models/{model_id}"))

    @operation
    def delete_configured_model(self, model_id: int) -> Operation[None]:
        """Archive a configured model: it stays readable by id and drops out of the lists."""
        model_id = _require_id("model_id", model_id)
        yield from self._request("DELETE", f"/v1/crud/configured-models/{model_id}")

    @operation
    def register_model_template(
        self,
        name: str,
        description: str,
        config_schema: Mapping[str, Any] | Any | None = None,
        supported_period_type: str = "any",
        required_covariates: Iterable[str] = (),
        target: str = "disease_cases",
        author: str | None = None,
        display_name: str | None = None,
    ) -> Operation[ModelTemplate]:
        """Register a model template by its description. ``config_schema`` is a
        ``chaplab.schema`` schema (anything with ``to_dict()``) or its JSON dict; its properties
        become the template's ``user_options``."""
        if supported_period_type not in PERIOD_TYPES:
            raise ValueError(
                f"supported_period_type must be one of {PERIOD_TYPES}, "
                f"got {supported_period_type!r}"
            )
        covariates = (
            [required_covariates]
            if isinstance(required_covariates, str)
            else list(required_covariates)
        )
        body: dict[str, Any] = {
            "name": _require_name("name", name),
            "description": _require_name("description", description),
            "supportedPeriodType": supported_period_type,
            "requiredCovariates": covariates,
            "target": _require_name("target", target),
        }
        if config_schema is not None:
            body["configSchema"] = _schema_dict(config_schema)
        if author is not None:
            body["author"] = author
        if display_name is not None:
            body["displayName"] = display_name
        return (yield from self._call(ModelTemplate, "POST", "/v1/crud/models", json=body))


def _schema_dict(schema: Any) -> dict[str, Any]:
    if isinstance(schema, Mapping):
        return dict(schema)
    to_dict = getattr(schema, "to_dict", None)
    if callable(to_dict):
        return dict(to_dict())
    raise TypeError(f"config_schema must be a ConfigSchema or a dict, got {type(schema).__name__}")
