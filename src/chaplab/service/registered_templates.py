"""Model templates by row: the built-in ones of the forecasting package, ones stored from a
model service (run there), or ones registered by description through ``POST /v1/crud/models``.

A registered template is listed, has options (its configuration schema) and can be configured,
but this service has no code to run it: its forecast raises :class:`NotRunnableHere`, so a job
using it fails with that reason.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session, object_session

from chaplab.schema import ConfigSchema
from chaplab.service.forecasting import TEMPLATES, ModelTemplateSpec
from chaplab.service.forecasting.inputs import ForecastTask
from chaplab.service.tables import ModelTemplateRow, RegisteredTemplateRow, ServiceTemplateRow


class NotRunnableHere(RuntimeError):
    """The template was registered by its description only; the service cannot run it."""


def template_spec(template: ModelTemplateRow) -> ModelTemplateSpec:
    """The spec of a stored template (built-in, else its newest version from a model service,
    else its registration)."""
    built_in = TEMPLATES.get(template.name)
    if built_in is not None:
        return built_in
    session = object_session(template)
    if session is not None:
        version = newest_service_version(session, template.id)
        if version is not None:
            return service_spec(template.name, version)
    registration = session.get(RegisteredTemplateRow, template.id) if session is not None else None
    if registration is None:
        raise LookupError(f"model template {template.name!r} has neither code nor a registration")
    return registered_spec(template.name, registration)


BUILT_IN_VERSION = "1"
"""The version of a built-in template and of one registered by its description."""


def template_version(template: ModelTemplateRow) -> str:
    """A stored template's version: its newest version from a model service, else
    :data:`BUILT_IN_VERSION`."""
    session = object_session(template)
    version = newest_service_version(session, template.id) if session is not None else None
    return version.version if version is not None else BUILT_IN_VERSION


def newest_service_version(session: Session, template_id: int) -> ServiceTemplateRow | None:
    """The newest version stored from a model service of the template, if any."""
    return session.scalar(
        select(ServiceTemplateRow)
        .where(ServiceTemplateRow.template_id == template_id)
        .order_by(ServiceTemplateRow.id.desc())
        .limit(1)
    )


PERIOD_TYPES_OF_SERVICES = {"monthly": "month", "weekly": "week", "any": "any"}
"""chapkit's period types as the service's templates name them."""


def service_spec(name: str, version: ServiceTemplateRow) -> ModelTemplateSpec:
    """The spec of a template a model service runs (the worker sends its forecasts there, see
    :mod:`chaplab.service.model_services`), described by the service's info."""
    info = version.info
    metadata = info.get("model_metadata") or {}

    def elsewhere(task: ForecastTask) -> np.ndarray:
        raise NotRunnableHere(
            f"model template {name!r} runs on its model service {version.service_id!r}"
        )

    return ModelTemplateSpec(
        name=name,
        display_name=info.get("display_name") or name,
        description=info.get("description") or "No Description",
        author=metadata.get("author") or "Unknown Author",
        supported_period_type=PERIOD_TYPES_OF_SERVICES.get(info.get("period_type", "any"), "any"),
        target=info.get("target") or "disease_cases",
        required_covariates=list(info.get("required_covariates") or []),
        config_schema=ConfigSchema.from_dict(
            {"type": "object", "properties": version.user_options}
        ),
        forecaster=elsewhere,
        min_training_periods=_one_period,
        allow_free_additional_continuous_covariates=bool(
            info.get("allow_free_additional_continuous_covariates")
        ),
        min_prediction_periods=_bound(info.get("min_prediction_periods")),
        max_prediction_periods=_bound(info.get("max_prediction_periods")),
    )


def _bound(value: Any) -> int | None:
    """A prediction-length bound from a service's info: a whole number, else none."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _one_period(options: dict[str, Any], season: int) -> int:
    return 1


def registered_spec(name: str, row: RegisteredTemplateRow) -> ModelTemplateSpec:
    """A spec from a registration, whose forecast refuses to run."""

    def refuse(task: ForecastTask) -> np.ndarray:
        raise NotRunnableHere(
            f"model template {name!r} was registered by its description only; this service runs "
            f"only its built-in templates ({', '.join(TEMPLATES)})"
        )

    return ModelTemplateSpec(
        name=name,
        display_name=row.display_name,
        description=row.description,
        author=row.author,
        supported_period_type=row.supported_period_type,
        target=row.target,
        required_covariates=list(row.required_covariates),
        config_schema=ConfigSchema.from_dict(row.config_schema),
        forecaster=refuse,
        min_training_periods=_one_period,
    )
