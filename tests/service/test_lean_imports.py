"""The service's processes skip jsonschema's slow optional format checker; kernels keep it."""

from __future__ import annotations

import subprocess
import sys

from chaplab.service import job_runner


def run_python(code: str) -> str:
    """The standard output of ``code`` run by a fresh interpreter of this environment."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.strip()


def test_after_lean_imports_jsonschema_validates_without_the_grammar_module() -> None:
    output = run_python(
        "import chaplab.service.lean_imports, sys\n"
        "from jsonschema import Draft7Validator\n"
        "from chaplab.schema import create_config_schema, schema_integer, validate_config\n"
        "schema = create_config_schema(properties={'n': schema_integer(minimum=1)})\n"
        "try:\n"
        "    validate_config({'n': 0}, schema)\n"
        "except ValueError as error:\n"
        "    print(str(error).splitlines()[-1].strip())\n"
        "print(sys.modules['rfc3987_syntax'])\n"
    )
    assert output.splitlines() == ["n: 0 is less than the minimum of 1", "None"]


def test_job_workers_skip_it_before_they_import_the_worker_code() -> None:
    preload = job_runner._PRELOAD
    assert preload.index("chaplab.service.lean_imports") < preload.index("chaplab.service.worker")


def test_a_kernel_that_uses_the_client_and_schemas_is_left_alone() -> None:
    output = run_python(
        "import sys, chaplab, chaplab.client, chaplab.service.embedded\n"
        "import jsonschema\n"
        "print(sys.modules.get('rfc3987_syntax', 'not imported') is not None)\n"
    )
    assert output == "True"
