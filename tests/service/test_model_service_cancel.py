"""A job on a model service is cancelled with SIGTERM (as the job runner cancels it): the
worker ends, whatever its main thread holds when the signal arrives."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

ENDS_ON_SIGTERM = textwrap.dedent(
    """
    import os, signal
    import httpx
    from chaplab.service.model_services import ModelService
    from chaplab.service.remote_models import cancelled_with_the_job

    service = ModelService(
        "held", "http://model.test", transport=httpx.MockTransport(lambda r: httpx.Response(204))
    )
    with cancelled_with_the_job(service), service._lock:  # as while it cancels failed splits
        os.kill(os.getpid(), signal.SIGTERM)
        signal.pause()
    """
)


def test_a_sigterm_while_the_main_thread_holds_the_services_lock_ends_the_worker() -> None:
    """The SIGTERM handler runs in the main thread between two of its statements; one that
    waited for the service's lock would wait forever when the signal lands while the main
    thread holds it (cancelling the other splits after one failed)."""
    ended = subprocess.run([sys.executable, "-c", ENDS_ON_SIGTERM], timeout=120, check=False)
    assert ended.returncode == 128 + signal.SIGTERM
