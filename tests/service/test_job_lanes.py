"""Jobs whose model runs on a model service run in a lane of their own: while they wait on the
service they hold none of the CPU workers, so a built-in job submitted after them finishes
first, and the lane runs at most ``$CHAPLAB_MODEL_SERVICE_JOBS_AT_ONCE`` of them at once. The
log lines of a job that waits reach its log meanwhile."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from chaplab.client import ChapClient
from chaplab.service import create_app
from chaplab.toolkit import BackgroundServer
from chaplab.vocabulary import PENDING, REVOKED, STARTED

from .helpers import geojson_for, small_frame
from .model_service_stand_in import StandIn, registered_stand_in

pytestmark = pytest.mark.integration

JOB_LIMIT = 120
"""How long the test waits for a job or a model service's request."""


def wait_for_status(client: ChapClient, job_id: str, status: str) -> None:
    deadline = time.monotonic() + JOB_LIMIT
    while (found := client.job_status(job_id)) != status:
        assert time.monotonic() < deadline, f"job {job_id} is {found}, not {status}"
        time.sleep(0.05)


def test_a_built_in_job_finishes_while_model_service_jobs_wait_and_the_lane_is_bounded(
    new_database_url: Callable[[str], str], monkeypatch: pytest.MonkeyPatch, unique: str
) -> None:
    monkeypatch.setenv("CHAPLAB_MODEL_SERVICE_JOBS_AT_ONCE", "1")
    monkeypatch.setenv("CHAPLAB_MODEL_SERVICE_JOB_SECONDS", str(JOB_LIMIT * 2))
    app = create_app(new_database_url("lanes"), workers=1, seed_demo=False)
    held = StandIn(f"held-{unique}", mode="hold")  # its train jobs never finish
    with (
        BackgroundServer(app, "127.0.0.1") as server,
        ChapClient(server.url) as client,
        registered_stand_in(server.url, held),
    ):
        frame = small_frame(n_years=2)
        places = sorted(set(frame.location))
        dataset = client.create_dataset("places", frame, geojson=geojson_for(places))
        template = client.register_template_from_service(held.service_id)
        remote = client.create_configured_model("held", template.id).name
        templates = {template.name: template.id for template in client.list_model_templates()}
        naive = client.create_configured_model("plain", templates["naive_model"]).name
        waiting = client.create_evaluation("waits on the service", remote, dataset.id, 2, 2)
        assert held.submitted.wait(JOB_LIMIT), "the model service was never asked to train"
        queued = client.create_evaluation("waits for the lane", remote, dataset.id, 2, 2)
        deadline = time.monotonic() + JOB_LIMIT  # its lines arrive while it waits, not at its end
        while "splits go to" not in client.job_logs(waiting.id):
            assert time.monotonic() < deadline, "the waiting job's log lines were not committed"
            time.sleep(0.1)

        built_in = client.run_evaluation("built in", naive, dataset.id, 2, 2, timeout=JOB_LIMIT)

        assert built_in.name == "built in"
        assert client.job_status(waiting.id) == STARTED  # still waiting on the service
        assert client.job_status(queued.id) == PENDING  # the lane runs one at a time
        held.submitted.clear()
        client.cancel_job(waiting.id)
        wait_for_status(client, queued.id, STARTED)  # the lane's room went to the next one
        assert held.submitted.wait(JOB_LIMIT)
        client.cancel_job(queued.id)
        assert client.job_status(waiting.id) == client.job_status(queued.id) == REVOKED


@pytest.mark.parametrize("value", ["many", "0", "-2", "1.5"])
def test_a_lane_limit_that_is_not_a_whole_number_of_at_least_one_is_refused(
    new_database_url: Callable[[str], str], monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("CHAPLAB_MODEL_SERVICE_JOBS_AT_ONCE", value)
    with pytest.raises(ValueError, match="CHAPLAB_MODEL_SERVICE_JOBS_AT_ONCE must be a whole"):
        create_app(new_database_url("bad-lane"), workers=1, seed_demo=False)
