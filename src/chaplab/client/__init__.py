"""The thin client of the modeling service: typed models, errors, retries, job polling.

``ChapClient`` (blocking) and ``AsyncChapClient`` (asyncio) have the same methods, built from
one set of sans-IO operations (``_operations``). ``import chaplab.client`` does not import
pandas; the frame-returning methods load ``chaplab.frames`` when called.
"""

from chaplab.client._async import AsyncChapClient
from chaplab.client._errors import (
    AuthenticationError,
    ChapConnectionError,
    ChapDecodeError,
    ChapError,
    ChapHTTPError,
    ChapTimeoutError,
    ConflictError,
    JobFailedError,
    JobTimeoutError,
    NotFoundError,
    PermissionDeniedError,
    ServerError,
    UnprocessableEntityError,
)
from chaplab.client._models import (
    ConfiguredModelWithDataSource,
    Dataset,
    DataSource,
    Evaluation,
    EvaluationEntry,
    Health,
    Job,
    JobRef,
    ModelSpec,
    ModelTemplate,
    Observation,
    PredictionEntry,
    PredictionRequest,
    SystemInfo,
)
from chaplab.client._polling import PollSchedule
from chaplab.client._result_models import (
    DataImportReport,
    DataSourceKind,
    DebugEntry,
    EvaluationDetail,
    EvaluationMetrics,
    EvaluationOverlap,
    JobResult,
    ListedPredictionEntry,
    MetricPlotCatalog,
    ModelRunner,
    PngImage,
    Prediction,
    PredictionDetail,
    RejectedOrgUnit,
)
from chaplab.client._steps import RetryPolicy
from chaplab.client._sync import ChapClient
from chaplab.vocabulary import DEFAULT_QUANTILES, NON_TERMINAL_STATUSES

__all__ = [
    "DEFAULT_QUANTILES",
    "NON_TERMINAL_STATUSES",
    "AsyncChapClient",
    "AuthenticationError",
    "ChapClient",
    "ChapConnectionError",
    "ChapDecodeError",
    "ChapError",
    "ChapHTTPError",
    "ChapTimeoutError",
    "ConfiguredModelWithDataSource",
    "ConflictError",
    "DataImportReport",
    "DataSource",
    "DataSourceKind",
    "Dataset",
    "DebugEntry",
    "Evaluation",
    "EvaluationDetail",
    "EvaluationEntry",
    "EvaluationMetrics",
    "EvaluationOverlap",
    "Health",
    "Job",
    "JobFailedError",
    "JobRef",
    "JobResult",
    "JobTimeoutError",
    "ListedPredictionEntry",
    "MetricPlotCatalog",
    "ModelRunner",
    "ModelSpec",
    "ModelTemplate",
    "NotFoundError",
    "Observation",
    "PermissionDeniedError",
    "PngImage",
    "PollSchedule",
    "Prediction",
    "PredictionDetail",
    "PredictionEntry",
    "PredictionRequest",
    "RejectedOrgUnit",
    "RetryPolicy",
    "ServerError",
    "SystemInfo",
    "UnprocessableEntityError",
]
