"""Model templates, configured models (also the merged ``/v1/crud/models`` view, where templates
are registered by description) and configured models with data source, all under ``/v1/crud``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from chaplab.service.domain import models
from chaplab.service.routes.dependencies import (
    DB,
    LIST_ANSWER,
    Paged,
    with_total,
)
from chaplab.service.wire.models import (
    ConfiguredModelCreate,
    ConfiguredModelDetail,
    ConfiguredModelWithDataSourceRead,
    ModelSpecRead,
    ModelTemplateCreate,
    ModelTemplateFromService,
    ModelTemplateRead,
)

router = APIRouter(prefix="/v1/crud", tags=["models"])


@router.get("/model-templates", responses=LIST_ANSWER)
def list_model_templates(session: DB, page: Paged, response: Response) -> list[ModelTemplateRead]:
    """The templates, by id; their ids are the only valid ``modelTemplateId`` values. A page
    of them when ``limit`` or ``offset`` is given."""
    return with_total(response, models.list_templates(session, page))


@router.post("/model-templates/from-service")
def add_model_template_from_service(
    request: ModelTemplateFromService, session: DB
) -> ModelTemplateRead:
    """Store the template a registered model service describes, read from its own info and
    config schema. A version is written once: storing it again returns the stored template
    (shown again if it was retired). 404 if the service is not registered, 409 if it reports
    no source revision or another one than stored under its version, or takes the name of a
    template that is not its own, 502 if it cannot be read."""
    return models.template_from_service(session, request)


@router.delete("/model-templates/{modelTemplateId}")
def delete_model_template(
    model_template_id: Annotated[int, Path(alias="modelTemplateId")],
    session: DB,
    all_versions: Annotated[bool, Query(alias="allVersions")] = False,
) -> dict[str, str]:
    """Retire a model template: it and its configured models leave the pickers and stay
    readable, so past evaluations still resolve. Storing it from its service again shows it
    again."""
    models.retire_template(session, model_template_id, all_versions)
    return {"message": "deleted"}


@router.get("/configured-models", responses=LIST_ANSWER)
def list_configured_models(session: DB, page: Paged, response: Response) -> list[ModelSpecRead]:
    """The configured models not archived, by id; a page of them when ``limit`` or
    ``offset`` is given."""
    return with_total(response, models.list_configured_models(session, page))


@router.get("/models", responses=LIST_ANSWER)
def list_models(session: DB, page: Paged, response: Response) -> list[ModelSpecRead]:
    """The merged read view: the same records as ``/v1/crud/configured-models``."""
    return with_total(response, models.list_configured_models(session, page))


@router.post("/configured-models")
def create_configured_model(request: ConfiguredModelCreate, session: DB) -> ModelSpecRead:
    """Create ``{template}:{name}`` (``default`` is the bare template name). The same name with
    the same options returns the existing record; with other options it is a 409."""
    return models.create_configured_model(session, request)


@router.get("/configured-models/{model_id}")
def get_configured_model(model_id: int, session: DB) -> ConfiguredModelDetail:
    """One configured model with its template, archived ones included (``archived`` says
    which)."""
    return models.configured_model(session, model_id)


@router.delete("/configured-models/{model_id}", status_code=204, response_class=Response)
def archive_configured_model(model_id: int, session: DB) -> Response:
    """Archive a configured model: it stays readable by id (and keeps its evaluations) but
    drops out of the lists."""
    models.archive_configured_model(session, model_id)
    return Response(status_code=204)


@router.post("/models")
def register_model_template(request: ModelTemplateCreate, session: DB) -> ModelTemplateRead:
    """Register a model template by its description and configuration schema. It is listed and
    can be configured; this service runs only its built-in templates, so evaluating it fails
    with that reason."""
    return models.register_template(session, request)


@router.get("/configured-models-with-data-source", responses=LIST_ANSWER)
def list_configured_models_with_data_source(
    session: DB, page: Paged, response: Response
) -> list[ConfiguredModelWithDataSourceRead]:
    """Every configured model with data source, by id; a page of them when ``limit`` or
    ``offset`` is given."""
    return with_total(response, models.list_bundles(session, page))


@router.get("/configured-models-with-data-source/{bundle_id}")
def get_configured_model_with_data_source(
    bundle_id: int, session: DB
) -> ConfiguredModelWithDataSourceRead:
    return models.bundle_read(models.get_bundle(session, bundle_id))


@router.post("/configured-models-with-data-source/from-backtest/{backtest_id}")
def create_from_backtest(backtest_id: int, session: DB) -> ConfiguredModelWithDataSourceRead:
    """Bundle the evaluation's configured model with its dataset's org units and data sources."""
    return models.bundle_from_backtest(session, backtest_id)
