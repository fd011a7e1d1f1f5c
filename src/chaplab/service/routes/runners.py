"""The registry of model services (``/v2/services``, snake_case on the wire), as chap-core 2.5.1
keeps it: servicekit registers a chapkit service here and pings it alive."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Request, Response

from chaplab.service.domain import models, runners
from chaplab.service.routes.dependencies import DB
from chaplab.service.wire.runners import (
    PingResponse,
    RegistrationResponse,
    ServiceDetail,
    ServiceList,
    ServiceRegistration,
)

router = APIRouter(prefix="/v2/services", tags=["model services"])
ServiceKey = Annotated[str | None, Header(alias=runners.KEY_HEADER)]


@router.get("")
def list_services(session: DB) -> ServiceList:
    """The model services registered now."""
    return runners.list_services(session)


@router.get("/{service_id}")
def get_service(service_id: str, session: DB) -> ServiceDetail:
    return runners.get_service(session, service_id)


@router.post("/$register")
def register_service(
    registration: ServiceRegistration, request: Request, session: DB, key: ServiceKey = None
) -> RegistrationResponse:
    """Register a model service under its own id (again: the latest URL and info win) and
    store its model template when it is not stored yet; the answer says the absolute URL to
    ping. A template that cannot be stored leaves the registration standing and says why in
    ``message``."""
    runners.check_service_key(key)
    service, answer = runners.register_service(session, registration, str(request.base_url))
    answer.message += models.template_on_registration(session, service)
    return answer


@router.put("/{service_id}/$ping")
def ping_service(service_id: str, session: DB, key: ServiceKey = None) -> PingResponse:
    """Keep the service registered for another ``ttl_seconds``."""
    runners.check_service_key(key)
    return runners.ping_service(session, service_id)


@router.delete("/{service_id}", status_code=204, response_class=Response)
def remove_service(service_id: str, session: DB, key: ServiceKey = None) -> Response:
    """Take the service off the registry; the templates stored from it stay."""
    runners.check_service_key(key)
    runners.remove_service(session, service_id)
    return Response(status_code=204)
