"""The thin client of the modeling service: typed models, errors, retries, job polling.

``ChapClient`` (blocking) and ``AsyncChapClient`` (asyncio) have the same methods, generated
from one set of sans-IO operations, one module per resource (``_datasets``, ``_jobs``, ...).
``import chaplab.client`` does not import pandas; the frame-returning methods load
``chaplab.frames`` when called.
"""

from chaplab.client._alerts import Alert, AlertLevel, AlertPolicy, NewAlert
from chaplab.client._backtest_form import BacktestParameter, CovariateName, WeatherProvider
from chaplab.client._client import AsyncChapClient, ChapClient
from chaplab.client._dataset_deletion import DatasetDeletion, DatasetUser
from chaplab.client._datasets import Dataset, DataSource, DataSourceKind, Observation
from chaplab.client._errors import (
    ArgumentError,
    ArgumentTypeError,
    AuthenticationError,
    ChapConnectionError,
    ChapDecodeError,
    ChapError,
    ChapHTTPError,
    ChapTimeoutError,
    ConflictError,
    JobFailedError,
    JobTimeoutError,
    NameResolutionError,
    NotFoundError,
    OrphanedRecordError,
    PermissionDeniedError,
    ServerError,
    UnprocessableEntityError,
    UnsupportedRouteError,
)
from chaplab.client._evaluations import (
    DataImportReport,
    Evaluation,
    EvaluationDetail,
    EvaluationEntry,
    EvaluationOverlap,
    RejectedOrgUnit,
)
from chaplab.client._jobs import Job, JobCancellation, JobRef, JobResult
from chaplab.client._model_catalog import ConfiguredModelWithDataSource, ModelSpec, ModelTemplate
from chaplab.client._model_runners import ModelRunner
from chaplab.client._plots import (
    EvaluationMetrics,
    FacetPlot,
    InteractiveChart,
    MetricPlotCatalog,
    PngImage,
    ServerPlot,
)
from chaplab.client._plumbing import Listing
from chaplab.client._polling import PollSchedule
from chaplab.client._prediction_setups import (
    PredictionSetup,
    PredictionSetupDetail,
    QuantileTarget,
)
from chaplab.client._predictions import (
    ListedPredictionEntry,
    Prediction,
    PredictionDetail,
    PredictionEntry,
    PredictionRequest,
)
from chaplab.client._specifications import (
    BacktestBatch,
    BacktestSpecification,
    BacktestSpecificationDetail,
    BatchJob,
    LeaderboardEvaluation,
    ReferenceComparison,
    ReferenceModel,
)
from chaplab.client._steps import RetryPolicy
from chaplab.client._system import DebugEntry, Health, Readiness, SystemInfo
from chaplab.client._thresholds import (
    PercentileParams,
    SeasonalParams,
    ThresholdEntry,
    Thresholds,
    ThresholdStrategy,
)
from chaplab.client._wire import RecordKey
from chaplab.vocabulary import DEFAULT_QUANTILES, NON_TERMINAL_STATUSES

__all__ = [
    "DatasetDeletion",
    "DatasetUser",
    "RecordKey",
    "Listing",
    "Alert",
    "AlertLevel",
    "AlertPolicy",
    "NewAlert",
    "BacktestParameter",
    "CovariateName",
    "WeatherProvider",
    "FacetPlot",
    "PredictionSetup",
    "PredictionSetupDetail",
    "QuantileTarget",
    "Readiness",
    "PercentileParams",
    "SeasonalParams",
    "ThresholdEntry",
    "Thresholds",
    "ThresholdStrategy",
    "BacktestBatch",
    "BacktestSpecification",
    "BacktestSpecificationDetail",
    "BatchJob",
    "LeaderboardEvaluation",
    "ReferenceComparison",
    "ReferenceModel",
    "DEFAULT_QUANTILES",
    "NON_TERMINAL_STATUSES",
    "ArgumentError",
    "ArgumentTypeError",
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
    "InteractiveChart",
    "Job",
    "JobCancellation",
    "JobFailedError",
    "JobRef",
    "JobResult",
    "JobTimeoutError",
    "ListedPredictionEntry",
    "MetricPlotCatalog",
    "ModelRunner",
    "ModelSpec",
    "ModelTemplate",
    "NameResolutionError",
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
    "OrphanedRecordError",
    "ServerError",
    "ServerPlot",
    "SystemInfo",
    "UnprocessableEntityError",
    "UnsupportedRouteError",
]
