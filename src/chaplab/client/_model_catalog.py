"""Model templates and configured models (with and without data sources): what can be
evaluated and how it is configured."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from pydantic import Field, model_validator

from chaplab.client._capabilities import Route
from chaplab.client._datasets import DataSource
from chaplab.client._errors import (
    ArgumentError,
    ArgumentTypeError,
    UnsupportedRouteError,
    conflict_before_sending,
)
from chaplab.client._plumbing import (
    CONFIGURED_MODELS,
    TEMPLATES,
    Resource,
    encode_body,
    require_bool,
    require_id,
    require_name,
)
from chaplab.client._steps import Operation
from chaplab.client._wire import NullableDict, NullableList, StoredRecord, WireModel
from chaplab.vocabulary import configured_model_name

SUPPORTED_PERIOD_TYPES = ("any", "month", "week")

# -- wire models -----------------------------------------------------------------------------


class ModelTemplate(WireModel):
    """A model template; ``user_options`` maps option names to their JSON-schema properties.

    A template stored from a model service (``uses_chapkit``) also says the author's
    assessment of it (``author_assessed_status``: gray, red, orange, yellow or green), the
    source revision of its ``version`` (``source_digest``), the horizons it forecasts
    (``min_prediction_periods``, ``max_prediction_periods``) and whether its service is
    registered now with that revision (``health_status``: ``live`` or ``revision_mismatch``;
    None when it is not registered)."""

    id: int
    name: str
    display_name: str | None = None
    description: str | None = None
    author: str | None = None
    supported_period_type: str | None = None
    target: Any = None
    required_covariates: NullableList[str] = Field(default_factory=list)
    user_options: NullableDict[Any] = Field(default_factory=dict)
    hpo_search_space: Any = None
    allow_free_additional_continuous_covariates: bool | None = None
    requires_geo: bool | None = None
    version: str | None = None
    archived: bool | None = None
    is_live: bool | None = None
    uses_chapkit: bool | None = None
    role: str | None = None
    author_note: str | None = None
    author_assessed_status: str | None = None
    source_digest: str | None = None
    health_status: str | None = None
    min_prediction_periods: int | None = None
    max_prediction_periods: int | None = None


class ModelSpec(WireModel):
    """A configured model (``GET /v1/crud/models`` and ``/v1/crud/configured-models``).

    ``id`` is the configured model's id, never a template id. ``model_template_id`` and
    ``role`` (its template's: ``"baseline"`` for the models every comparison is measured
    against, ``"comparison"``, or None) are optional because some lists leave them out (both
    servers' ``list_configured_models``); they are taken from a nested ``modelTemplate`` when
    given, as evaluations and leaderboards nest it. :meth:`template_in` finds the template
    where they are missing.

    A model that a model service runs (``uses_chapkit``) says whether that service is
    registered now (``health_status``: ``live``, ``revision_mismatch``, or None when it is
    not); ``service_missing`` is True for one whose service is not, which cannot be evaluated.
    """

    id: int
    name: str
    display_name: str | None = None
    model_template_id: int | None = None
    supported_period_type: str | None = None
    user_option_values: NullableDict[Any] = Field(default_factory=dict)
    additional_continuous_covariates: NullableList[str] = Field(default_factory=list)
    covariates: NullableList[Any] = Field(default_factory=list)
    target: Any = None
    archived: bool | None = None
    role: str | None = None
    training_periods: NullableDict[int] = Field(default_factory=dict)
    """How many periods it trains on before its first forecast, by period type (``month``,
    ``week``), as our service says: a backtest's splits fit after them. Empty from a server
    that does not say (chap-core 2.5.1), where one period is all that is known."""
    uses_chapkit: bool | None = None
    health_status: str | None = None

    @property
    def service_missing(self) -> bool:
        """True for a model that a model service runs whose service is not registered now:
        evaluating it or forecasting with it would fail."""
        return bool(self.uses_chapkit) and self.health_status is None

    @model_validator(mode="before")
    @classmethod
    def _template_fields_from_nested(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        nested = data.get("modelTemplate", data.get("model_template"))
        if not isinstance(nested, dict):
            return data
        filled = dict(data)
        if data.get("modelTemplateId", data.get("model_template_id")) is None and isinstance(
            nested.get("id"), int
        ):
            filled["modelTemplateId"] = nested["id"]
        if data.get("role") is None and isinstance(nested.get("role"), str):
            filled["role"] = nested["role"]
        return filled

    def template_in(self, templates: Iterable[ModelTemplate]) -> ModelTemplate | None:
        """The template of ``templates`` this model configures: by ``model_template_id`` when
        the server sent it, else by the name both servers give a configuration (its
        template's name, or ``<template name>:<configuration>``); a version not archived
        before an archived one. None when none matches."""
        if self.model_template_id is not None:
            found = [item for item in templates if item.id == self.model_template_id]
        else:
            template_name = self.name.split(":", 1)[0]
            found = [item for item in templates if item.name == template_name]
        found.sort(key=lambda item: bool(item.archived))
        return found[0] if found else None

    def role_in(self, templates: Iterable[ModelTemplate]) -> str | None:
        """The model's role: the one the server sent with it, else its template's (of
        ``templates``, :meth:`template_in`)."""
        if self.role is not None:
            return self.role
        template = self.template_in(templates)
        return template.role if template is not None else None


class ConfiguredModelWithDataSource(StoredRecord):
    """A configured model bundled with the data sources used for predictions."""

    configured_model: ModelSpec | None = None
    period_type: str | None = None
    start_period: str | None = None
    org_units: NullableList[str] = Field(default_factory=list)
    data_sources: NullableList[DataSource] = Field(default_factory=list)


# -- operations ------------------------------------------------------------------------------

REGISTER_TEMPLATE = Route(
    "register_model_template",
    "POST",
    "/v1/crud/models",
    "register a model runner (register_model_runner()), then "
    "register_template_from_service(runner_id) stores the template it describes",
)
FROM_SERVICE = Route(
    "register_template_from_service",
    "POST",
    "/v1/crud/model-templates/from-service",
    "register_model_template(name, description), a template from its description",
)
DELETE_TEMPLATE = Route(
    "delete_model_template",
    "DELETE",
    "/v1/crud/model-templates/{id}",
    "delete_configured_model(model_id) for each configuration of the template (templates "
    "stay on this server)",
)
TEMPLATE_ROLES = ("baseline", "comparison")
MERGED_MODELS = Route("list_models", "GET", "/v1/crud/models", "list_configured_models()")
_SETUPS = (
    "the server's prediction setups (create_prediction_setup(evaluation_id, name), "
    "list_prediction_setups(), run_prediction_setup(...)), or "
    "run_prediction(name, model, frame) for a forecast from a configured model and data"
)
LIST_WITH_DATA_SOURCE = Route(
    "list_configured_models_with_data_source",
    "GET",
    "/v1/crud/configured-models-with-data-source",
    _SETUPS,
)
GET_WITH_DATA_SOURCE = Route(
    "get_configured_model_with_data_source",
    "GET",
    "/v1/crud/configured-models-with-data-source/{id}",
    _SETUPS,
)
WITH_DATA_SOURCE_FROM_EVALUATION = Route(
    "create_configured_model_with_data_source_from_evaluation",
    "POST",
    "/v1/crud/configured-models-with-data-source/from-backtest/{id}",
    _SETUPS,
)


class ModelCatalog(Resource):
    """``/v1/crud/model-templates``, ``/v1/crud/models``, ``/v1/crud/configured-models`` and
    ``/v1/crud/configured-models-with-data-source``."""

    def list_model_templates(self) -> Operation[list[ModelTemplate]]:
        """All model templates; their ids are the valid ``model_template_id`` values."""
        return (yield from self._get(list[ModelTemplate], "/v1/crud/model-templates"))

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
        if supported_period_type not in SUPPORTED_PERIOD_TYPES:
            raise ArgumentError(
                f"supported_period_type must be one of {SUPPORTED_PERIOD_TYPES}, "
                f"got {supported_period_type!r}"
            )
        covariates = (
            [required_covariates]
            if isinstance(required_covariates, str)
            else list(required_covariates)
        )
        body: dict[str, Any] = {
            "name": require_name("name", name),
            "description": require_name("description", description),
            "supportedPeriodType": supported_period_type,
            "requiredCovariates": covariates,
            "target": require_name("target", target),
        }
        if config_schema is not None:
            body["configSchema"] = _schema_dict(config_schema)
        if author is not None:
            body["author"] = author
        if display_name is not None:
            body["displayName"] = display_name
        return (yield from self._call_route(ModelTemplate, REGISTER_TEMPLATE, json=body))

    def register_template_from_service(
        self, service_id: str, role: str | None = None
    ) -> Operation[ModelTemplate]:
        """Store the template a registered model service (a runner of ``list_model_runners``)
        describes, read from the service's own info and configuration schema. ``role`` marks
        it as a ``"baseline"`` or ``"comparison"`` model. A template version is stored once:
        registering it again returns the stored template.

        Answers the template as ``list_model_templates`` lists it, with its ``health_status``
        (chap-core 2.5.1's own answer leaves that out); as the server answered where the list
        does not show it."""
        body: dict[str, Any] = {"serviceId": require_name("service_id", service_id)}
        if role is not None:
            if role not in TEMPLATE_ROLES:
                raise ArgumentError(f"role must be one of {TEMPLATE_ROLES} or None, got {role!r}")
            body["role"] = role
        stored = yield from self._call_route(ModelTemplate, FROM_SERVICE, json=body)
        listed = yield from self.list_model_templates()
        return next((template for template in listed if template.id == stored.id), stored)

    def delete_model_template(
        self, model_template_id: int, all_versions: bool = False
    ) -> Operation[None]:
        """Retire a model template: it and its configured models leave the pickers, and stay
        readable so that past evaluations still resolve. With ``all_versions=True`` every
        version of the template's name is retired."""
        model_template_id = require_id("model_template_id", model_template_id)
        require_bool("all_versions", all_versions)
        params = {"allVersions": "true"} if all_versions else None
        yield from self._request_route(DELETE_TEMPLATE, model_template_id, params=params)

    def list_models(self) -> Operation[list[ModelSpec]]:
        """The merged model list (``/v1/crud/models``), without archived models.

        Where the server lacks that route (chap-core 2.5.1) the configured-model list is
        returned.
        """
        routes = yield from self._server_routes()
        if not routes.offers(MERGED_MODELS):
            return (yield from self.list_configured_models())
        try:
            models = yield from self._call_route(list[ModelSpec], MERGED_MODELS)
        except UnsupportedRouteError:
            return (yield from self.list_configured_models())
        return [model for model in models if not model.archived]

    def list_configured_models(self, include_archived: bool = False) -> Operation[list[ModelSpec]]:
        """All configured models; archived ones (deleted, still readable by id) only with
        ``include_archived=True``. Some servers list them, some do not: the client leaves them
        out unless asked. A model whose model service is not registered now is listed with
        ``service_missing`` True (its ``health_status`` None), on both servers."""
        models = yield from self._get(list[ModelSpec], "/v1/crud/configured-models")
        return [model for model in models if include_archived or not model.archived]

    def get_configured_model(self, model_id: int) -> Operation[ModelSpec]:
        """One configured model by id (archived ones too: see ``archived``)."""
        model_id = require_id("model_id", model_id)
        return (yield from self._get(ModelSpec, f"/v1/crud/configured-models/{model_id}"))

    def create_configured_model(
        self,
        name: str,
        model_template_id: int | str,
        user_option_values: Mapping[str, Any] | None = None,
        additional_continuous_covariates: Iterable[str] = (),
    ) -> Operation[ModelSpec]:
        """Configure a model template with option values and store it.

        ``model_template_id`` is the template's id or its name (``"regression_model"``; a name
        no template has is a ``NameResolutionError``, a ``ValueError``, with "did you mean";
        of versions sharing a name, the one not archived is taken). The stored record's name is
        ``{template_name}:{name}`` (``default`` maps to the bare template name), so it differs
        from ``name``: use the returned record's ``name`` when creating evaluations.

        A name stands for one configuration, on every server: creating an existing name
        with the same option values and covariates returns the existing record (brought back
        if it was archived); with others it is a ``ConflictError`` naming the existing model
        and its options. The client checks that before sending, since chap-core 2.5.1 would
        otherwise put the new options under the old name and hide the old model from every
        list, while evaluations of both say the same ``model_id``.

        ``additional_continuous_covariates`` are features the model reads besides its
        template's own covariates (chap-core's field of that name; a template with
        ``allow_free_additional_continuous_covariates`` uses them, as ``regression_model`` does).
        A dataset the model runs on must have them.
        """
        name = require_name("name", name)
        covariates = (
            [additional_continuous_covariates]
            if isinstance(additional_continuous_covariates, str)
            else list(additional_continuous_covariates)
        )
        for index, covariate in enumerate(covariates):
            require_name(f"additional_continuous_covariates[{index}]", covariate)
        template_id = yield from self._id_of("model_template_id", model_template_id, TEMPLATES)
        options = dict(user_option_values or {})
        as_sent = orjson.loads(encode_body(options))  # a value JSON cannot carry is refused here
        body = {
            "name": name,
            "modelTemplateId": template_id,
            "userOptionValues": options,
            "additionalContinuousCovariates": covariates,
        }
        yield from self._refuse_other_options(name, template_id, as_sent, covariates)
        return (yield from self._call(ModelSpec, "POST", CONFIGURED_MODELS.path, json=body))

    def _refuse_other_options(
        self, name: str, template_id: int, options: dict[str, Any], covariates: list[str]
    ) -> Operation[None]:
        """``ConflictError`` when a configured model (archived ones too) has the name that
        ``name`` of template ``template_id`` is stored under, with other options or
        covariates."""
        templates = yield from self.list_model_templates()
        template = next((item for item in templates if item.id == template_id), None)
        if template is None:
            return  # the server says what is wrong with the template
        stored_name = configured_model_name(template.name, name)
        models = yield from self.list_configured_models(include_archived=True)
        for model in models:
            if model.name != stored_name:
                continue
            differences = [
                f"{argument} {stored!r} (asked for {asked!r})"
                for argument, stored, asked in (
                    ("user_option_values", model.user_option_values, options),
                    (
                        "additional_continuous_covariates",
                        model.additional_continuous_covariates,
                        covariates,
                    ),
                )
                if stored != asked
            ]
            if differences:
                archived = ", archived" if model.archived else ""
                raise conflict_before_sending(
                    f"configured model {stored_name!r} (id {model.id}{archived}) exists with "
                    + " and ".join(differences)
                    + "; choose another name for other options",
                    method="POST",
                    url=self._builder.url(CONFIGURED_MODELS.path),
                )

    def delete_configured_model(self, model_id: int) -> Operation[None]:
        """Archive a configured model: it stays readable by id and drops out of the lists."""
        model_id = require_id("model_id", model_id)
        yield from self._request("DELETE", f"/v1/crud/configured-models/{model_id}")

    def list_configured_models_with_data_source(
        self,
    ) -> Operation[list[ConfiguredModelWithDataSource]]:
        """All configured models bundled with data sources (used for predictions)."""
        shape = list[ConfiguredModelWithDataSource]
        return (yield from self._call_route(shape, LIST_WITH_DATA_SOURCE))

    def get_configured_model_with_data_source(
        self, configured_model_with_data_source_id: int
    ) -> Operation[ConfiguredModelWithDataSource]:
        """One configured model with data source."""
        record_id = require_id(
            "configured_model_with_data_source_id", configured_model_with_data_source_id
        )
        shape = ConfiguredModelWithDataSource
        return (yield from self._call_route(shape, GET_WITH_DATA_SOURCE, record_id))

    def create_configured_model_with_data_source_from_evaluation(
        self, evaluation_id: int
    ) -> Operation[ConfiguredModelWithDataSource]:
        """Derive a configured model with data source from an evaluation's model and dataset."""
        evaluation_id = require_id("evaluation_id", evaluation_id)
        route = WITH_DATA_SOURCE_FROM_EVALUATION
        return (yield from self._call_route(ConfiguredModelWithDataSource, route, evaluation_id))


def _schema_dict(schema: Any) -> dict[str, Any]:
    if isinstance(schema, Mapping):
        return dict(schema)
    to_dict = getattr(schema, "to_dict", None)
    if callable(to_dict):
        return dict(to_dict())
    raise ArgumentTypeError(
        f"config_schema must be a ConfigSchema or a dict, got {type(schema).__name__}"
    )
