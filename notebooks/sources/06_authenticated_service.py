# %% [markdown]
# # Services that need an API key
#
# A modeling service on a shared server should not answer just anyone. Services built with
# `chaplab.toolkit` can require an **API key**: a secret text that every request carries in the
# `X-API-Key` header. This notebook
#
# 1. builds a tiny service with two keys and runs it on this machine,
# 2. shows what the service answers without a key, with a wrong key and with a right key,
# 3. connects the chaplab client to a modeling service that needs a key.
#
# Nothing here touches a real deployment. The keys below are visibly fake demo keys: real keys
# belong in a key file or an environment variable, never in a notebook.

# %% [markdown]
# ## 1. Build a small service with API keys
#
# The service has one route of its own, `/v1/forecasts/latest`. `ServiceBuilder` adds a landing
# page, the documentation pages and a health check; `.with_auth(api_keys=[...])` makes every other
# path require one of the keys. Two keys are active at once, so a key can be replaced without
# downtime: add the new one, move the clients over, remove the old one.

# %% [markdown]
# The service logs each key check on the logger `chaplab.toolkit.auth`. Collect those events
# here, to look at them at the end.

# %%
import logging

from chaplab.toolkit import event_fields


class CollectEvents(logging.Handler):
    """Keep the fields of each log event."""

    def __init__(self) -> None:
        super().__init__(level=logging.INFO)
        self.events: list[dict] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.events.append(event_fields(record))


auth_events = CollectEvents()
logging.getLogger("chaplab.toolkit.auth").addHandler(auth_events)
logging.getLogger("chaplab.toolkit.auth").setLevel(logging.INFO)

# %%
from fastapi import APIRouter

from chaplab.toolkit import BackgroundServer, ServiceBuilder

DEMO_KEYS = ["sk_demo_NOT_A_REAL_KEY_0001", "sk_demo_NOT_A_REAL_KEY_0002"]

router = APIRouter()


@router.get("/latest")
def latest_forecast() -> dict:
    """The newest forecast summary (fixed numbers, for the demonstration)."""
    return {"orgUnit": "District A", "period": "2024-07", "median": 42, "interval_80": [30, 57]}


app = (
    ServiceBuilder(title="District forecasts", version="1.0.0")
    .with_auth(api_keys=DEMO_KEYS)
    .include_router(router, prefix="/v1/forecasts")
    .build()
)

server = BackgroundServer(app).start()
print("The service answers at", server.url)

# %% [markdown]
# ## 2. The health check needs no key
#
# `/`, `/docs`, `/redoc`, `/openapi.json` and `/health` stay open, so that monitoring and people
# reading the documentation do not need a key.

# %% tags=["nbval-check-output"]
import httpx

health = httpx.get(f"{server.url}/health")
print(health.status_code, health.json()["status"])

# %% [markdown]
# ## 3. No key: 401 Unauthorized
#
# A request without the header is refused with status **401**. The body is a standard
# *problem details* document (RFC 9457): a `type` to recognise the error by, a `title`, the
# `status`, a `detail` saying what was wrong, and the `instance` (the path that was asked for).
# The `WWW-Authenticate` header names the header the key belongs in.

# %% tags=["nbval-check-output"]
import json

no_key = httpx.get(f"{server.url}/v1/forecasts/latest")
print(no_key.status_code, no_key.headers["content-type"])
print("WWW-Authenticate:", no_key.headers["www-authenticate"])
print(json.dumps(no_key.json(), indent=2))

# %% [markdown]
# ## 4. A wrong key: also 401, with another detail

# %% tags=["nbval-check-output"]
wrong_key = httpx.get(
    f"{server.url}/v1/forecasts/latest", headers={"X-API-Key": "sk_demo_GUESSED_KEY_9999"}
)
print(wrong_key.status_code)
print(json.dumps(wrong_key.json(), indent=2))

# %% [markdown]
# ## 5. A right key: the answer
#
# Either of the two active keys works.

# %% tags=["nbval-check-output"]
for key in DEMO_KEYS:
    answer = httpx.get(f"{server.url}/v1/forecasts/latest", headers={"X-API-Key": key})
    print(answer.status_code, answer.json())

# %% [markdown]
# ## 6. What the service wrote in its log
#
# Every decision was logged as an event (`auth.missing_key`, `auth.invalid_key`,
# `auth.success`) with the path asked for. A log never holds a whole key: only its first 7
# characters (`key_prefix`), enough to recognise a key without giving it away.

# %% tags=["nbval-check-output"]
for event in auth_events.events:
    print(event)

# %% [markdown]
# The small service has shown what it needed to; stop it.

# %%
server.stop()

# %% [markdown]
# ## 7. The chaplab client and a modeling service with keys
#
# The modeling service is built with the same toolkit, so it protects itself the same way. Start
# one here with a demo key and a database in a temporary folder (no demo data, to start fast).
# `create_app` builds the service; `BackgroundServer` runs it on this computer.

# %%
import tempfile
from pathlib import Path

from chaplab.service import create_app

SERVICE_KEY = "sk_demo_NOT_A_REAL_KEY_0003"
database = Path(tempfile.mkdtemp(prefix="chaplab-notebook-")) / "chaplab.db"
modeling = BackgroundServer(
    create_app(database_url=database, api_keys=[SERVICE_KEY], workers=1, seed_demo=False)
).start()

# %% [markdown]
# A client without a key is refused: the client raises `AuthenticationError` (status 401) with
# the service's explanation.

# %% tags=["nbval-check-output"]
from chaplab.client import AuthenticationError, ChapClient

try:
    ChapClient(modeling.url).list_model_templates()
except AuthenticationError as error:
    print(type(error).__name__, error.status_code, error.problem["detail"])

# %% [markdown]
# With the key (`api_key=...`), the same call works. The client sends the key in the `X-API-Key`
# header on every request and never shows more than its first 7 characters, not even in its
# `repr` or its error messages. For your own work, keep the key out of the notebook: set the
# environment variables `CHAP_URL` and `CHAP_API_KEY` before starting Jupyter, and
# `chaplab.connect()` will use them.

# %% tags=["nbval-check-output"]
with ChapClient(modeling.url, api_key=SERVICE_KEY) as client:
    print([template.name for template in client.list_model_templates()])

# %%
modeling.stop()
