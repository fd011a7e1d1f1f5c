"""Model templates, configured models and configured models with data source (bundles): reading
them as wire models, configuring a template, archiving, and registering a template by its
description."""

from __future__ import annotations

import hashlib
import json
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, object_session

from chaplab.schema import ConfigSchema, ConfigValidationError, InvalidSchemaError, validate_config
from chaplab.service.domain.lookup import get_or_404
from chaplab.service.domain.paging import Listed, Page, listed_rows
from chaplab.service.domain.runners import live_service
from chaplab.service.errors import (
    Conflict,
    FieldProblem,
    Invalid,
    ModelServiceFailure,
    NotFound,
    ServiceError,
)
from chaplab.service.forecasting import TEMPLATES, ModelTemplateSpec, Panel
from chaplab.service.forecasting.templates import BASELINES
from chaplab.service.model_services import ModelService, ModelServiceError, user_options
from chaplab.service.registered_templates import newest_service_version, template_spec
from chaplab.service.tables import (
    ConfiguredModelRow,
    ConfiguredModelWithDataSourceRow,
    DatasetRow,
    EvaluationRow,
    ModelRunnerRow,
    ModelTemplateRow,
    RegisteredTemplateRow,
    ServiceTemplateRow,
    utc_now,
)
from chaplab.service.text import display_name, feature_description
from chaplab.service.wire.common import from_row
from chaplab.service.wire.models import (
    ConfiguredModelCreate,
    ConfiguredModelDB,
    ConfiguredModelDetail,
    ConfiguredModelRead,
    ConfiguredModelWithDataSourceRead,
    FeatureRef,
    ModelSpecRead,
    ModelTemplateCreate,
    ModelTemplateFromService,
    ModelTemplateRead,
)
from chaplab.vocabulary import PERIOD_TYPES, configured_model_name

Spec = TypeVar("Spec", bound=ModelSpecRead)

READ_SECONDS = 5.0
"""How long reading a model service's info or config schema may take (chap-core's 5 s)."""


def template_read(row: ModelTemplateRow) -> ModelTemplateRead:
    """A template as the wire shows it: its spec's description, ``userOptions`` from its
    schema, and for a template from a model service its version, metadata and the service's
    health."""
    spec = template_spec(row)
    fields = {"role": "baseline" if row.name in BASELINES else None, **_service_fields(row)}
    return from_row(
        ModelTemplateRead,
        spec,
        id=row.id,
        user_options=spec.config_schema.properties,
        archived=row.archived,
        is_live=not row.archived,
        min_prediction_length=fields.get("min_prediction_periods", spec.min_prediction_periods),
        max_prediction_length=fields.get("max_prediction_periods", spec.max_prediction_periods),
        **fields,
    )


METADATA_FIELDS = (
    "organization",
    "organization_logo_url",
    "contact_email",
    "citation_info",
    "documentation_url",
)
"""What a model service's ``model_metadata`` says of its template beyond the author's note and
assessment (null where it says nothing)."""


def _service_fields(row: ModelTemplateRow) -> dict[str, Any]:
    """What a template from a model service says beyond a built-in one: its version, where it
    runs and its source revision, its author's metadata and assessment, horizon bounds, and
    whether its service is registered now (``live``) with that revision (else
    ``revision_mismatch``)."""
    session = object_session(row)
    version = newest_service_version(session, row.id) if session is not None else None
    if session is None or version is None:
        return {}
    info = version.info
    metadata = info.get("model_metadata") or {}
    service = session.get(ModelRunnerRow, version.service_id)
    health = None
    if service is not None and service.expires_at > utc_now():
        same = service.info.get("version") != version.version or (
            service.info.get("git_revision") == version.source_digest
        )
        health = "live" if same else "revision_mismatch"
    return {
        "version": version.version,
        "uses_chapkit": True,
        "source_url": service.url if service is not None else None,
        "source_digest": version.source_digest,
        "health_status": health,
        **{name: metadata.get(name) or None for name in METADATA_FIELDS},
        "author_note": metadata.get("author_note") or "",
        "author_assessed_status": metadata.get("author_assessed_status") or "red",
        "min_prediction_periods": info.get("min_prediction_periods"),
        "max_prediction_periods": info.get("max_prediction_periods"),
        "requires_geo": bool(info.get("requires_geo")),
        "hpo_search_space": info.get("hpo_search_space"),
        "role": version.role,
    }


def is_baseline(model: ConfiguredModelRow) -> bool:
    """Whether the model is one of the baselines every comparison is measured against."""
    return model.template.name in BASELINES


def configuration_digest(model: ConfiguredModelRow) -> str:
    """The SHA-256 of the model's template, options and covariates: equal digests, equal
    configurations."""
    configuration = {
        "template": model.template.name,
        "userOptionValues": model.user_option_values,
        "additionalContinuousCovariates": model.additional_continuous_covariates,
    }
    return hashlib.sha256(json.dumps(configuration, sort_keys=True).encode()).hexdigest()


def configured_model_read(model: ConfiguredModelRow) -> ConfiguredModelRead:
    """A configured model in 2.5.1's shape (``ConfiguredModelRead``), its template nested."""
    return ConfiguredModelRead(
        id=model.id,
        name=model.name,
        user_option_values=model.user_option_values,
        additional_continuous_covariates=model.additional_continuous_covariates,
        configuration_digest=configuration_digest(model),
        model_template=template_read(model.template),
    )


def configured_model_db(model: ConfiguredModelRow) -> ConfiguredModelDB:
    """A configured model's stored row (2.5.1's ``ConfiguredModelDB``)."""
    return from_row(
        ConfiguredModelDB,
        model,
        configuration_digest=configuration_digest(model),
        is_live=not model.archived,
        uses_chapkit=_service_fields(model.template).get("uses_chapkit", False),
    )


def model_spec(row: ConfiguredModelRow) -> ModelSpecRead:
    """A configured model as the wire shows it: its template's description, metadata and
    source, its options and its covariates (the template's own ones under its options, then
    its additional ones), and its stored row's digest."""
    return _configured_model(ModelSpecRead, row)


def configured_model_detail(row: ConfiguredModelRow) -> ConfiguredModelDetail:
    """A configured model with its template nested (2.5.1's ``ConfiguredModelRead``)."""
    return _configured_model(ConfiguredModelDetail, row, model_template=template_read(row.template))


def _configured_model(shape: type[Spec], row: ConfiguredModelRow, **values: Any) -> Spec:
    spec = template_spec(row.template)
    own_name = row.name.split(":", 1)[1] if ":" in row.name else ""
    covariates = spec.covariates(row.user_option_values, row.additional_continuous_covariates)
    described = {
        name: value
        for name, value in _service_fields(row.template).items()
        if name in ModelSpecRead.model_fields
    }
    return from_row(
        shape,
        row,
        display_name=f"{spec.display_name} [{display_name(own_name)}]"
        if own_name
        else spec.display_name,
        description=spec.description,
        author=spec.author,
        supported_period_type=spec.supported_period_type,
        covariates=[_feature(name) for name in covariates],
        target=_feature(spec.target),
        configuration_digest=configuration_digest(row),
        is_live=not row.archived,
        training_periods=training_periods(spec, row.user_option_values),
        **described,
        **values,
    )


def training_periods(spec: ModelTemplateSpec, options: dict[str, Any]) -> dict[str, int]:
    """The periods the model trains on before its first forecast, by each period type it
    supports (what a backtest's history is checked by); none for options its template no
    longer accepts."""
    try:
        return {
            period_type: spec.history_needed(options, period_type)
            for period_type in PERIOD_TYPES
            if spec.supported_period_type in ("any", period_type)
        }
    except ValueError:
        return {}


def _feature(name: str) -> FeatureRef:
    return FeatureRef(
        name=name, display_name=display_name(name), description=feature_description(name)
    )


def bundle_read(row: ConfiguredModelWithDataSourceRow) -> ConfiguredModelWithDataSourceRead:
    return from_row(
        ConfiguredModelWithDataSourceRead, row, configured_model=model_spec(row.configured_model)
    )


def list_templates(session: Session, page: Page) -> Listed[ModelTemplateRead]:
    """The templates of ``page``, by id."""
    query = select(ModelTemplateRow).order_by(ModelTemplateRow.id)
    return listed_rows(session, query, page, template_read)


def list_configured_models(session: Session, page: Page) -> Listed[ModelSpecRead]:
    """The configured models of ``page`` that are not archived, by id."""
    listed = select(ConfiguredModelRow).where(ConfiguredModelRow.archived.is_(False))
    return listed_rows(session, listed.order_by(ConfiguredModelRow.id), page, model_spec)


def configured_model(session: Session, model_id: int) -> ConfiguredModelDetail:
    """One configured model by id with its template, archived ones included."""
    row = get_or_404(session, ConfiguredModelRow, model_id, "configured model")
    return configured_model_detail(row)


def configured_model_by_name(session: Session, model_id: str | int) -> ConfiguredModelRow:
    """The configured model named ``model_id`` (the ``modelId`` of a request), or with that id
    when it is an integer (as chap-core 2.5.1's ``create-backtest`` takes it too)."""
    if isinstance(model_id, int):
        return get_or_404(session, ConfiguredModelRow, model_id, "configured model", "modelId")
    row = session.scalar(select(ConfiguredModelRow).where(ConfiguredModelRow.name == model_id))
    if row is None:
        if model_id.isdigit():
            raise FieldProblem(
                "modelId",
                f"expects a configured-model NAME (such as 'naive_model'), "
                f"not an id like {model_id!r}",
            )
        raise NotFound("configured model", model_id, "modelId", named=True)
    return row


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
        raise Conflict(
            f"configured model {existing.name!r} exists with "
            + " and ".join(differences)
            + "; choose another name for other options",
        )


def create_configured_model(session: Session, request: ConfiguredModelCreate) -> ModelSpecRead:
    """Store ``{template}:{name}`` (``default`` is the bare template name) after checking the
    options against the template's schema. The same name with the same options returns the
    existing record (brought back if archived); with other options it is a 409."""
    template = get_or_404(
        session, ModelTemplateRow, request.model_template_id, "model template", "modelTemplateId"
    )
    spec = template_spec(template)
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
        raise Invalid(
            f"userOptionValues break the options of {spec.name!r}: "
            + "; ".join(f"{p['field']}: {p['msg']}" for p in problems),
            problems=problems,
        ) from None
    if any(not name.strip() for name in request.additional_continuous_covariates):
        raise FieldProblem("additionalContinuousCovariates", "covariate names must not be empty")
    name = configured_model_name(spec.name, request.name)
    existing = session.scalar(select(ConfiguredModelRow).where(ConfiguredModelRow.name == name))
    if existing is not None:
        check_same_configuration(existing, request)
        if existing.archived:  # creating an archived name again brings it back into the lists
            existing.archived = False
            session.commit()
        return model_spec(existing)
    row = ConfiguredModelRow(
        name=name,
        model_template_id=template.id,
        user_option_values=request.user_option_values,
        additional_continuous_covariates=request.additional_continuous_covariates,
    )
    session.add(row)
    session.commit()
    return model_spec(row)


def archive_configured_model(session: Session, model_id: int) -> None:
    """Archive a configured model: it stays readable by id (and keeps its evaluations) but
    drops out of the lists."""
    get_or_404(session, ConfiguredModelRow, model_id, "configured model").archived = True
    session.commit()


def register_template(session: Session, request: ModelTemplateCreate) -> ModelTemplateRead:
    """Store a template described by its name, covariates and configuration schema (409 when
    the name is taken). It can be configured; running it fails, since this service runs only
    its built-in templates (see :mod:`chaplab.service.registered_templates`)."""
    if (
        session.scalar(select(ModelTemplateRow.id).where(ModelTemplateRow.name == request.name))
        is not None
    ):
        raise Conflict(f"name: a model template named {request.name!r} already exists")
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


def list_bundles(session: Session, page: Page) -> Listed[ConfiguredModelWithDataSourceRead]:
    """The configured models with data source of ``page``, by id."""
    query = select(ConfiguredModelWithDataSourceRow).order_by(ConfiguredModelWithDataSourceRow.id)
    return listed_rows(session, query, page, bundle_read)


def get_bundle(
    session: Session, bundle_id: int, field: str | None = None
) -> ConfiguredModelWithDataSourceRow:
    """The configured model with data source ``bundle_id`` (NotFound naming ``field``)."""
    return get_or_404(
        session,
        ConfiguredModelWithDataSourceRow,
        bundle_id,
        "configured model with data source",
        field,
    )


def bundle_from_backtest(session: Session, backtest_id: int) -> ConfiguredModelWithDataSourceRead:
    """Bundle an evaluation's configured model with its dataset's org units and data sources."""
    evaluation = get_or_404(session, EvaluationRow, backtest_id, "backtest", "backtestId")
    dataset = evaluation.dataset
    row = new_bundle(evaluation.configured_model, dataset.name, dataset, dataset.data_sources)
    session.add(row)
    session.commit()
    return bundle_read(row)


def new_bundle(
    model: ConfiguredModelRow,
    data_name: str,
    data: DatasetRow | Panel,
    data_sources: list[dict[str, Any]],
) -> ConfiguredModelWithDataSourceRow:
    """``model`` bundled with the period type, first period and org units of ``data`` (a stored
    dataset or a panel), named ``{model} @ {data_name}``; not yet added to a session."""
    return ConfiguredModelWithDataSourceRow(
        name=f"{model.name} @ {data_name}",
        configured_model_id=model.id,
        period_type=data.period_type,
        start_period=data.periods[0],
        org_units=data.org_units,
        data_sources=data_sources,
    )


def template_from_service(session: Session, request: ModelTemplateFromService) -> ModelTemplateRead:
    """Store the template the registered model service ``serviceId`` describes (as 2.5.1's
    ``from-service``): 404 when it is not registered, 409 when it reports no source revision,
    another revision than the one stored under its version, or the name of a template that
    is not its own, 502 when it cannot be read. A version is written once: storing it again
    returns it (shown again if it was retired); the role is set on every call."""
    service = live_service(session, request.service_id, "serviceId")
    version = store_service_template(
        session, service, ModelService(service.id, service.url, READ_SECONDS)
    )
    version.role = request.role
    session.commit()
    template = session.get_one(ModelTemplateRow, version.template_id)
    return template_read(template)


def store_service_template(
    session: Session, service: ModelRunnerRow, api: ModelService
) -> ServiceTemplateRow:
    """The stored version of ``service``'s template, stored now from its info and config
    schema (read through ``api``) when it is new; Conflict or ModelServiceFailure as
    :func:`template_from_service` says. Commits."""
    info = service.info
    name, version_label, revision = (
        info["id"],
        info.get("version", "1.0.0"),
        info.get("git_revision"),
    )
    template = session.scalar(select(ModelTemplateRow).where(ModelTemplateRow.name == name))
    registered = (
        template is not None and session.get(RegisteredTemplateRow, template.id) is not None
    )
    if name in TEMPLATES or registered:
        raise Conflict(
            f"Model template {name!r} is a built-in or registered template and cannot be "
            "stored from a service. Register the service under another model id.",
        )
    stored = (
        session.scalar(
            select(ServiceTemplateRow).where(
                ServiceTemplateRow.template_id == template.id,
                ServiceTemplateRow.version == version_label,
            )
        )
        if template is not None
        else None
    )
    if revision is None or (stored is not None and stored.source_digest != revision):
        raise Conflict(
            f"Model template {name!r} version {version_label!r} is stored from revision "
            f"{stored.source_digest if stored else None!r}, but its source now reports revision "
            f"{revision!r}. A version is write-once, so the new revision needs a new version "
            "label: "
            + (
                "build the image with the GIT_REVISION build arg and register it again."
                if revision is None
                else "bump the service's version and register it again."
            ),
        )
    if stored is not None:
        assert template is not None, "a stored version is one of a stored template"
        template.archived = False
        session.commit()
        return stored
    try:
        options = user_options(api.config_schema())
        ConfigSchema.from_dict({"type": "object", "properties": options})
    except (ModelServiceError, InvalidSchemaError) as error:
        raise ModelServiceFailure(f"Could not read the service at {service.url}: {error}") from None
    try:
        if template is None:
            template = ModelTemplateRow(name=name)
            session.add(template)
            session.flush()
        template.archived = False
        version = ServiceTemplateRow(
            template_id=template.id,
            version=version_label,
            source_digest=revision,
            service_id=service.id,
            info=info,
            user_options=options,
        )
        session.add(version)
        session.commit()
    except IntegrityError:  # a concurrent request (the registration's own) stored it first
        session.rollback()
        return store_service_template(session, service, api)
    return version


def retire_template(session: Session, template_id: int, all_versions: bool) -> None:
    """Hide a template and its configured models from the pickers (archived), keeping them
    readable so that past evaluations still resolve. This service keeps one row per template
    name, so ``all_versions`` retires the same row."""
    template = get_or_404(session, ModelTemplateRow, template_id, "model template")
    template.archived = True
    for model in session.scalars(
        select(ConfiguredModelRow).where(ConfiguredModelRow.model_template_id == template.id)
    ):
        model.archived = True
    session.commit()


def template_on_registration(session: Session, service: ModelRunnerRow) -> str:
    """Store a registering service's template unless it is stored (as 2.5.1 does on
    ``$register``); what to add to the registration's message when it cannot be."""
    try:
        store_service_template(
            session, service, ModelService(service.id, service.url, READ_SECONDS)
        )
    except ServiceError as problem:
        session.rollback()
        return f" The model template was not stored: {problem.detail}"
    return ""
