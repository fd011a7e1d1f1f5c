"""``python -m chaplab``: the same as the ``chaplab`` command."""

from chaplab.cli import main

raise SystemExit(main())
