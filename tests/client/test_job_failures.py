"""A failed job's error is one sentence, read out of what each server keeps: the last
exception's text, with the model service and the step where one failed it; the texts below are
those chap-core 2.5.1 and our service wrote for real failures."""

from __future__ import annotations

from typing import Any

import pytest

from chaplab.client import JobFailedError

from .fake_service import FakeService

TRACEBACK = """Traceback (most recent call last):
  File "/venv/lib/python3.13/site-packages/servicekit/scheduler.py", line 396, in _run
    result = await execute_target()
  File "/venv/lib/python3.13/site-packages/chapkit/ml/manager.py", line 127, in _validate
    raise ValueError(diagnostic.message)
"""
CHAP_CORE_ERROR = (
    "Prediction job 01M8JVDFDNWJXKW4FS9RYJYCXH ended with status 'failed': ValueError: "
    "prediction_periods (24, from run_info) exceeds the maximum allowed value (12). "
    "Stacktrace: " + TRACEBACK
)[:600]
"""chap-core cuts a job's error to a length, here inside the traceback."""
CHAP_CORE_LOG = f"""\
05:11:00,519 [INFO] chap_status: Starting backtest for model 'scaled-x:pos' on dataset ID 2
05:11:00,644 [INFO] chap_core.database.database: Assuming chapkit model at http://127.0.0.1:59141
05:11:04,860 [INFO] chap_core.models.chapkit_rest_api_wrapper: Job 01M8 status: failed
chap_core.exceptions.ModelFailedException: {CHAP_CORE_ERROR}
ValueError: prediction_periods (24, from run_info) exceeds the maximum allowed value (12)
"""

CASES = {
    "a model service's job on chap-core": (
        CHAP_CORE_ERROR,
        CHAP_CORE_LOG,
        "model service 'scaled-x' at http://127.0.0.1:59141, predict: ValueError: "
        "prediction_periods (24, from run_info) exceeds the maximum allowed value (12)",
    ),
    "a model service's job on our service": (
        "ModelServiceError: model service 'scaled-mean' at http://127.0.0.1:40123: its train, "
        "split 1/2 job 01J9 ended failed: ValueError: scale must not be negative, got -1.0",
        "loading dataset 4\ntrain, split 1/2: submitted",
        "model service 'scaled-mean' at http://127.0.0.1:40123, train, split 1/2: ValueError: "
        "scale must not be negative, got -1.0",
    ),
    "a model service's answer on our service": (
        "ModelServiceError: model service 'scaled-mean' at http://127.0.0.1:40123 answered 500 "
        "to POST /api/v1/ml/$train (train, split 1/2): boom",
        None,
        "model service 'scaled-mean' at http://127.0.0.1:40123 answered 500 to POST "
        "/api/v1/ml/$train (train, split 1/2): boom",
    ),
    "a model script's stderr, through chap-core": (
        "Training job 01M9 ended with status 'failed': ModelRunFailedError: train script failed "
        "with exit code 1; diagnostic artifact 01MA holds the workspace, stdout and stderr; "
        'stderr tail: Traceback (most recent call last): |   File "train.py", line 3 | '
        "KeyError: 'rainfall'. Stacktrace: " + TRACEBACK,
        "Starting backtest for model 'ewars:monthly' on dataset ID 3\n",
        "model service 'ewars', train: KeyError: 'rainfall'",
    ),
    "an R model's error": (
        "Training job 01MB ended with status 'failed': ModelRunFailedError: train script failed "
        "with exit code 1; diagnostic artifact 01MC holds the workspace, stdout and stderr; "
        "stderr tail: Loading required package: INLA | Error in inla(formula): "
        "the response has no values. Stacktrace: ",
        None,
        "model service, train: Error in inla(formula): the response has no values",
    ),
    "a job of the service itself": (
        "ValueError: the dataset has 3 periods; naive_model needs at least 4",
        "Traceback (most recent call last):\n  ...\nValueError: the dataset has 3 periods",
        "ValueError: the dataset has 3 periods; naive_model needs at least 4",
    ),
    "chap-core's words without an exception's name": (
        "Dataset with id 1 not found",
        None,
        "Dataset with id 1 not found",
    ),
    "a job with a log but no error text": (
        None,
        "fitting\nTraceback (most recent call last):\n  File x\nRuntimeError: out of memory\n",
        "RuntimeError: out of memory",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_message_is_the_reason_and_the_details_keep_everything(
    client: Any, fake: FakeService, case: str
) -> None:
    error_text, logs, reason = CASES[case]
    fake.add_job(id="j1", final_status="FAILURE", error=error_text, logs=logs)
    with pytest.raises(JobFailedError) as caught:
        client.wait_for_job("j1")
    failed = caught.value
    assert str(failed) == failed.reason == reason
    assert "\n" not in str(failed) and "Traceback" not in str(failed)
    for said in (error_text, logs):
        assert said is None or said.strip() in failed.details
    assert (failed.error, failed.logs) == (error_text, logs)


def test_a_reason_longer_than_a_sentence_is_cut(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", final_status="FAILURE", error="ValueError: " + "x" * 2000)
    with pytest.raises(JobFailedError) as caught:
        client.wait_for_job("j1")
    assert len(str(caught.value)) == 500 and str(caught.value).endswith("…")
    assert caught.value.details == "ValueError: " + "x" * 2000
