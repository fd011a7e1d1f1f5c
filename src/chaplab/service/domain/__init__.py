"""What the service does, one module per resource: the routes call these functions, which read
and write rows and answer wire models (or JSON bytes where entries are spliced in)."""
