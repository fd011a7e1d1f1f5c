"""Model templates, configured models (also the merged ``/v1/crud/models`` view) and configured
models with data source."""

from __future__ import annotations

from fastapi import APIRouter
from sqlalchemy import select
from sqlalchemy.orm import Session

from chaplab.schema import ConfigValidationError, validate_config
from chaplab.service.db import (
    ConfiguredModelRow,
    ConfiguredModelWithDataSourceRow,
    EvaluationRow,
    ModelTemplateRow,
    next_configured_model_id,
)
from chaplab.service.errors import FieldProblem
from chaplab.service.routes._deps import DB, get_or_404
from chaplab.service.views import bundle_read, model_spec, spec_of, template_read
from chaplab.service.wire import (
    ConfiguredModelCreate,
    ConfiguredModelWithDataSourceRead,
    ModelSpecRead,
    ModelTemplateRead,
)
from chaplab.toolkit import ProblemError

router = APIRouter(tags=["models"])
DEFAULT_NAME = "default"


@router.get("/v1/crud/model-templates")
def list_model_templates(session: DB) -> list[ModelTemplateRead]:
    """The templates; their ids are the only valid ``modelTemplateId`` values."""
    return [
        template_read(row)
        for row in session.scalars(select(ModelTemplateRow).order_by(ModelTemplateRow.id))
    ]


@router.get("/v1/crud/configured-models")
def list_configured_models(session: DB) -> list[ModelSpecRead]:
    return [model_spec(row) for row in _configured_models(session)]


@router.get("/v1/crud/models")
def list_models(session: DB) -> list[ModelSpecRead]:
    """The merged read view: the same records as ``/v1/crud/configured-models``."""
    return [model_spec(row) for row in _configured_models(session)]


def check_same_configuration(existing: ConfiguredModelRow, request: ConfiguredModelCreate) -> None:
    """A 409 naming what differs when a stored configured model of the same name was made
    with other options or covariates: a name stands for one configuration."""
    differences = [
        f"{label} {stored!r} (asked for {asked!r})"
        for label, stored, asked in (
            ("userOptionValues", existing.user_option_values, request.user_option_values),
            (
                "additionalContinuousCovariates",
                existing.additional_continuous_covariates,
                request.additional_continuous_covariates,
            ),
        )
        if stored != asked
    ]
    if differences:
        raise ProblemError(
            409,
            detail=f"configured model {existing.name!r} exists with "
            + " and ".join(differences)
            + "; choose another name for other options",
        )


@router.post("/v1/crud/configured-models")
def create_configured_model(request: ConfiguredModelCreate, session: DB) -> ModelSpecRead:
    """Create ``{template}:{name}`` (``default`` is the bare template name). The same name with
    the same options returns the existing record; with other options it is a 409."""
    template = get_or_404(
        session, ModelTemplateRow, request.model_template_id, "model template", "modelTemplateId"
    )
    spec = spec_of(template)
    if ":" in request.name:
        raise FieldProblem(
            "name", "must not contain ':'; the service prefixes the template name itself"
        )
    try:
        validate_config(
            request.user_option_values, spec.config_schema, require_options_without_default=True
        )
    except ConfigValidationError as error:
        problems = [
            {
                "loc": ["body", "userOptionValues", *filter(None, problem.path.split("/"))],
                "field": f"userOptionValues.{problem.path}" if problem.path else "userOptionValues",
                "msg": problem.message,
                "type": "config_schema",
            }
            for problem in error.problems
        ]
        raise ProblemError(
            422,
            detail=f"userOptionValues break the options of {spec.name!r}: "
            + "; ".join(f"{p['field']}: {p['msg']}" for p in problems),
            errors=problems,
        ) from None
    if any(not name.strip() for name in request.additional_continuous_covariates):
        raise FieldProblem("additionalContinuousCovariates", "covariate names must not be empty")
    name = spec.name if request.name == DEFAULT_NAME else f"{spec.name}:{request.name}"
    existing = session.scalar(select(ConfiguredModelRow).where(ConfiguredModelRow.name == name))
    if existing is not None:
        check_same_configuration(existing, request)
        if existing.archived:  # creating an archived name again brings it back into the lists
            existing.archived = False
            session.commit()
        return model_spec(existing)
    row = ConfiguredModelRow(
        id=next_configured_model_id(session),
        name=name,
        model_template_id=template.id,
        user_option_values=request.user_option_values,
        additional_continuous_covariates=request.additional_continuous_covariates,
    )
    session.add(row)
    session.commit()
    return model_spec(row)


@router.get("/v1/crud/configured-models-with-data-source")
def list_configured_models_with_data_source(session: DB) -> list[ConfiguredModelWithDataSourceRead]:
    rows = session.scalars(
        select(ConfiguredModelWithDataSourceRow).order_by(ConfiguredModelWithDataSourceRow.id)
    )
    return [bundle_read(row) for row in rows]


@router.get("/v1/crud/configured-models-with-data-source/{bundle_id}")
def get_configured_model_with_data_source(
    bundle_id: int, session: DB
) -> ConfiguredModelWithDataSourceRead:
    return bundle_read(
        get_or_404(
            session,
            ConfiguredModelWithDataSourceRow,
            bundle_id,
            "configured model with data source",
        )
    )


@router.post("/v1/crud/configured-models-with-data-source/from-backtest/{backtest_id}")
def create_from_backtest(backtest_id: int, session: DB) -> ConfiguredModelWithDataSourceRead:
    """Bundle the evaluation's configured model with its dataset's org units and data sources."""
    evaluation = get_or_404(session, EvaluationRow, backtest_id, "backtest", "backtestId")
    dataset = evaluation.dataset
    row = ConfiguredModelWithDataSourceRow(
        name=f"{evaluation.configured_model.name} @ {dataset.name}",
        configured_model_id=evaluation.configured_model_id,
        period_type=dataset.period_type,
        start_period=dataset.periods[0],
        org_units=dataset.org_units,
        data_sources=dataset.data_sources,
    )
    session.add(row)
    session.commit()
    return bundle_read(row)


def _configured_models(session: Session) -> list[ConfiguredModelRow]:
    listed = select(ConfiguredModelRow).where(ConfiguredModelRow.archived.is_(False))
    return list(session.scalars(listed.order_by(ConfiguredModelRow.id)))
