"""The proof's model (``model.py``) served by chapkit through chaplab.chapkit_functions, as a
modeler serves the functions chaplab.backtest evaluated; registers with the orchestrator in
$SERVICEKIT_ORCHESTRATOR_URL. Runs in the peer's environment with chaplab's ``src`` on
PYTHONPATH: ``python service.py``, keeping its store in $PROOF_DATABASE."""

from __future__ import annotations

import os

from chapkit import BaseConfig
from chapkit.api import AssessedStatus, MLServiceBuilder, MLServiceInfo, ModelMetadata, PeriodType
from chapkit.artifact import ArtifactHierarchy
from model import predict, train
from servicekit.api.utilities import run_app

from chaplab.chapkit_functions import chapkit_runner

info = MLServiceInfo(
    id=os.environ.get("PROOF_ID", "backtest-proof"),
    display_name="Backtest proof",
    version="1.0.0",
    description="Each place's mean moved halfway to its last case; deterministic.",
    model_metadata=ModelMetadata(
        author="The chaplab tests", author_assessed_status=AssessedStatus.yellow
    ),
    period_type=PeriodType.monthly,
    min_prediction_periods=1,
    max_prediction_periods=12,
)
app = (
    MLServiceBuilder(
        info=info,
        config_schema=BaseConfig,
        hierarchy=ArtifactHierarchy(name="backtest_proof"),
        runner=chapkit_runner(train, predict),
        database_url=f"sqlite+aiosqlite:///{os.environ['PROOF_DATABASE']}",
    )
    .with_registration(keepalive_interval=5)
    .build()
)

if __name__ == "__main__":
    run_app(app, host="127.0.0.1", port=int(os.environ["SERVICEKIT_PORT"]))
