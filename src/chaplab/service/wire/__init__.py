"""Request and response models of the service, one module per resource; the shared base
models and field types are in :mod:`chaplab.service.wire.common`."""
