"""Keep an optional import the service never uses out of its processes.

When jsonschema is imported it loads every optional format checker installed beside it. One of
them, ``rfc3987_syntax`` (installed with JupyterLab), compiles a grammar at import that takes
1.5 s or more of a start-up whose target is 3 s. The service validates option values without
a format checker, so formats are never checked and that checker would never run. Importing this
module marks ``rfc3987_syntax`` as absent, so that jsonschema skips it; the service's own
processes do so first (``chaplab serve`` and the job workers' fork server). A kernel that only
uses the client is left alone.
"""

from __future__ import annotations

import sys

UNUSED_OPTIONAL_MODULES = ("rfc3987_syntax",)

for _name in UNUSED_OPTIONAL_MODULES:
    # None: "import fails" (typeshed types sys.modules as holding modules only)
    sys.modules.setdefault(_name, None)  # type: ignore[arg-type]
