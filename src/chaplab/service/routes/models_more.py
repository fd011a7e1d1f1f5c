"""Models beyond the main table: one configured model by id, archiving it, and registering a
model template by its description."""

from __future__ import annotations

from fastapi import APIRouter, Response
from sqlalchemy import select

from chaplab.schema import ConfigSchema, InvalidSchemaError
from chaplab.service.db import ConfiguredModelRow, ModelTemplateRow
from chaplab.service.errors import FieldProblem
from chaplab.service.records import RegisteredTemplateRow
from chaplab.service.routes._deps import DB, get_or_404
from chaplab.service.views import display_name, model_spec, template_read
from chaplab.service.wire import ModelSpecRead, ModelTemplateRead
from chaplab.service.wire_registry import ModelTemplateCreate
from chaplab.toolkit import ProblemError

router = APIRouter(tags=["models"])


@router.get("/v1/crud/configured-models/{model_id}")
def get_configured_model(model_id: int, session: DB) -> ModelSpecRead:
    """One configured model, archived ones included (``archived`` says which)."""
    return model_spec(get_or_404(session, ConfiguredModelRow, model_id, "configured model"))


@router.delete("/v1/crud/configured-models/{model_id}", status_code=204, response_class=Response)
def archive_configured_model(model_id: int, session: DB) -> Response:
    """Archive a configured model: it stays readable by id (and keeps its evaluations) but
    drops out of the lists."""
    get_or_404(session, ConfiguredModelRow, model_id, "configured model").archived = True
    session.commit()
    return Response(status_code=204)


@router.post("/v1/crud/models")
def register_model_template(request: ModelTemplateCreate, session: DB) -> ModelTemplateRead:
    """Register a model template by its description and configuration schema. It is listed and
    can be configured; this service runs only its built-in templates, so evaluating it fails
    with that reason."""
    if (
        session.scalar(select(ModelTemplateRow.id).where(ModelTemplateRow.name == request.name))
        is not None
    ):
        raise ProblemError(
            409, detail=f"name: a model template named {request.name!r} already exists"
        )
    try:
        schema = ConfigSchema.from_dict(request.config_schema)
    except InvalidSchemaError as error:
        raise FieldProblem("configSchema", str(error)) from None
    for index, covariate in enumerate(request.required_covariates):
        if not covariate.strip():
            raise FieldProblem(f"requiredCovariates[{index}]", "must not be empty")
    template = ModelTemplateRow(name=request.name)
    session.add(template)
    session.flush()
    session.add(
        RegisteredTemplateRow(
            id=template.id,
            display_name=request.display_name or display_name(request.name),
            description=request.description,
            author=request.author,
            supported_period_type=request.supported_period_type,
            target=request.target,
            required_covariates=list(request.required_covariates),
            config_schema=schema.to_dict(),
        )
    )
    session.commit()
    return template_read(template)
