"""Model templates by row: the built-in ones of the forecasting package, or ones registered by
description through ``POST /v1/crud/models``.

A registered template is listed, has options (its configuration schema) and can be configured,
but this service has no code to run it: its forecast raises :class:`NotRunnableHere`, so a job
using it fails with that reason.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sqlalchemy.orm import object_session

from chaplab.schema import ConfigSchema
from chaplab.service.forecasting import TEMPLATES, ModelTemplateSpec
from chaplab.service.forecasting.inputs import ForecastTask
from chaplab.service.tables import ModelTemplateRow, RegisteredTemplateRow


class NotRunnableHere(RuntimeError):
    """The template was registered by its description only; the service cannot run it."""


def template_spec(template: ModelTemplateRow) -> ModelTemplateSpec:
    """The spec of a stored template (built-in, else its registration)."""
    built_in = TEMPLATES.get(template.name)
    if built_in is not None:
        return built_in
    session = object_session(template)
    registration = session.get(RegisteredTemplateRow, template.id) if session is not None else None
    if registration is None:
        raise LookupError(f"model template {template.name!r} has neither code nor a registration")
    return registered_spec(template.name, registration)


def registered_spec(name: str, row: RegisteredTemplateRow) -> ModelTemplateSpec:
    """A spec from a registration, whose forecast refuses to run."""

    def refuse(task: ForecastTask) -> np.ndarray:
        raise NotRunnableHere(
            f"model template {name!r} was registered by its description only; this service runs "
            f"only its built-in templates ({', '.join(TEMPLATES)})"
        )

    def one_period(options: dict[str, Any], season: int) -> int:
        return 1

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
        min_training_periods=one_period,
    )
