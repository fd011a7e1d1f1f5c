"""``python -m chaplab``: the same as the ``chaplab`` command."""

from chaplab.cli import main

# Guarded: the service's worker processes import the parent's main module when they start.
if __name__ == "__main__":
    raise SystemExit(main())
