"""Why a job failed, in one sentence: the last exception's text, cut out of the error text and
log the server keeps (tracebacks, a model's stderr), with the model service and the step it
failed in when a model service failed it.

The servers word a model service's failure differently:

- chap-core 2.5.1: ``Prediction job <id> ended with status 'failed': ValueError: ... .
  Stacktrace: Traceback ...`` (chapkit's job error and traceback, the whole cut to a length),
  and its log names the model (``for model 'scaled-mean:x'``) and the service's URL
  (``Assuming chapkit model at http://...``);
- our service: ``ModelServiceError: model service 'scaled-mean' at http://...: its train,
  split 1/2 job <id> ended failed: ValueError: ...`` (or the service's answer to a request).

A chapkit model run as a script fails with its stderr's last lines joined by `` | ``; the last
of them that reads as an exception (``ValueError: ...``, R's ``Error in ...``) is the reason.
"""

from __future__ import annotations

import re

_CUT_AT = re.compile(r"\.?\s*Stacktrace:|\n\s*Traceback \(most recent call last\)|\nModel output:")
"""Where the reason ends and the traceback or the model's output begins."""
_CHAPKIT_JOB = re.compile(
    r"^(?P<kind>Training|Prediction) job \S+ ended with status '\w+': (?P<reason>.*)$", re.S
)
"""chap-core 2.5.1's words for a chapkit job that failed."""
_CHAPKIT_STEPS = {"Training": "train", "Prediction": "predict"}
_OUR_SERVICE_JOB = re.compile(
    r"^(?P<service>model service '[^']*' at \S+): its (?P<step>.+?) job \S+ ended \w+: "
    r"(?P<reason>.*)$",
    re.S,
)
"""Our service's words for a model service's job that failed."""
_OUR_WRAPPER = "ModelServiceError: "
"""The class our service names before a model service's failure: the text says it already."""
_EXCEPTION = re.compile(
    r"^(?:[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failure)\b.*?|Error(?: in .+?)?): .+$"
)
"""A line that states an exception: Python's ``ValueError: ...`` or R's ``Error in f(): ...``."""
_MODEL = re.compile(r"for model '(?P<model>[^']+)'")
_SERVICE_URL = re.compile(r"chapkit model at (?P<url>\S+)")
MAX_REASON = 500
"""Characters of a reason kept; a longer one ends in an ellipsis (the rest is in the details)."""


def failure_reason(error: str | None, logs: str | None) -> str | None:
    """The sentence saying why a job failed, from its ``error`` text and its ``logs`` (the
    last exception line of the log where the job has no error text); None when neither says."""
    text = (error or "").strip() or _last_exception(logs or "") or ""
    if not text:
        return None
    if text.startswith(_OUR_WRAPPER):
        text = text[len(_OUR_WRAPPER) :]
    text = _CUT_AT.split(text, maxsplit=1)[0].strip()
    chapkit = _CHAPKIT_JOB.match(text)
    ours = _OUR_SERVICE_JOB.match(text)
    if chapkit is not None:
        where = f"{_chap_core_service(logs or '')}{_CHAPKIT_STEPS[chapkit['kind']]}: "
        text = where + _stated(chapkit["reason"])
    elif ours is not None:
        text = f"{ours['service']}, {ours['step']}: {_stated(ours['reason'])}"
    else:
        text = _stated(text)
    text = " ".join(text.split())
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…"


def _stated(text: str) -> str:
    """The last exception ``text`` states, else its first line."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return _last_exception(text) or first


def _last_exception(text: str) -> str | None:
    """The last line or `` | ``-joined part of ``text`` that states an exception."""
    parts = [part.strip() for line in text.splitlines() for part in line.split(" | ")]
    return next((part for part in reversed(parts) if _EXCEPTION.match(part)), None)


def _chap_core_service(logs: str) -> str:
    """``model service 'x' at URL, `` as chap-core 2.5.1's log of the job names them (its
    template's name is the service's id), or what of it the log names."""
    model, url = _MODEL.search(logs), _SERVICE_URL.search(logs)
    service = f"model service {model['model'].split(':', 1)[0]!r}" if model else "model service"
    return f"{service} at {url['url']}, " if url else f"{service}, "
