"""All operations of the client: the main table (``_operations``) and the further endpoints,
grouped by resource in the ``_ops_*`` modules and combined here into one class."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chaplab.client._operations import _OPERATION_MARK, Operations
from chaplab.client._ops_admin import AdminOperations
from chaplab.client._ops_datasets import DatasetOperations
from chaplab.client._ops_evaluations import EvaluationOperations
from chaplab.client._ops_job_results import JobResultOperations
from chaplab.client._ops_models import ModelOperations
from chaplab.client._ops_predictions import PredictionOperations
from chaplab.client._ops_visualization import VisualizationOperations
from chaplab.client._steps import Operation


class ClientOperations(
    EvaluationOperations,
    DatasetOperations,
    ModelOperations,
    PredictionOperations,
    JobResultOperations,
    VisualizationOperations,
    AdminOperations,
):
    """Every endpoint of the modeling service as generators of steps."""


def client_operations() -> dict[str, Callable[..., Operation[Any]]]:
    """The public operations by name: the main table's first, then each group's."""
    found: dict[str, Callable[..., Operation[Any]]] = {}
    for cls in (Operations, *ClientOperations.__bases__):
        for name, member in vars(cls).items():
            if getattr(member, _OPERATION_MARK, False):
                found[name] = member
    return found
