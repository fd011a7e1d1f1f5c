"""Acceptance tests: the spec and the wire contract checked black-box over loopback HTTP."""
