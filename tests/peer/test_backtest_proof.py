"""The proof of chaplab.backtest: one deterministic model (no random draws, chapkit passes no
seed), backtested in the kernel with chaplab.backtest and served with chapkit through
chaplab.chapkit_functions, registered with chaplab's service and evaluated there, gives the same
evaluation frame: the same rows and the same quantiles."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import chaplab
from chaplab import ChapClient
from chaplab.service import create_app
from chaplab.toolkit import BackgroundServer

from .backtest_proof.model import predict, train
from .chapkit_services import running
from .model_service import chapkit_executable, free_port
from .peer_data import DATASET_NAME, observation_table, org_unit_geojson

PROOF = Path(__file__).with_name("backtest_proof") / "service.py"
SOURCE = Path(__file__).parents[2] / "src"
SERVICE_ID = "backtest-proof"


def wide_table() -> pd.DataFrame:
    """The peer tests' observations as dataset_frame gives them."""
    return observation_table().rename(columns={"org_unit": "location", "period": "time_period"})


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChapClient]:
    """chaplab's own service on loopback with the proof's model service registered."""
    folder = tmp_path_factory.mktemp("backtest-proof")
    app = create_app(folder / "chaplab.db", workers=2, seed_demo=False)
    with BackgroundServer(app, "127.0.0.1") as server, ChapClient(server.url) as connected:
        port = free_port()
        environment = {
            "SERVICEKIT_ORCHESTRATOR_URL": f"{server.url}/v2/services/$register",
            "SERVICEKIT_HOST": "127.0.0.1",
            "SERVICEKIT_PORT": str(port),
            "PROOF_ID": SERVICE_ID,
            "PROOF_DATABASE": str(folder / "proof.db"),
            "PYTHONPATH": str(SOURCE),
        }
        command = [str(chapkit_executable().with_name("python")), str(PROOF)]
        with running(command, environment, server.url, SERVICE_ID, port, folder / "log"):
            yield connected


@pytest.mark.parametrize(("n_splits", "n_periods", "stride"), [(3, 3, 1), (2, 2, 3)])
def test_the_same_model_gives_the_same_quantiles_in_the_kernel_and_as_a_service(
    client: ChapClient, n_splits: int, n_periods: int, stride: int
) -> None:
    dataset = next(
        (d for d in client.list_datasets() if d.name == DATASET_NAME), None
    ) or client.create_dataset(DATASET_NAME, wide_table(), geojson=org_unit_geojson())
    template = client.register_template_from_service(SERVICE_ID)
    model = client.create_configured_model(f"proof{n_splits}{stride}", template.id, {})
    evaluation = client.run_evaluation(
        "proof", model.name, dataset.id, n_periods, n_splits, stride, timeout=300
    )
    served = client.evaluation_frame(evaluation.id)
    local = chaplab.backtest(
        train,
        predict,
        client.dataset_frame(dataset.id),
        n_splits=n_splits,
        n_periods=n_periods,
        stride=stride,
        geojson=org_unit_geojson(),
        progress=False,
    )
    assert len(local) == len(served) == len(dataset.org_units) * n_splits * n_periods * 5
    pd.testing.assert_frame_equal(local.drop(columns="value"), served.drop(columns="value"))
    np.testing.assert_allclose(local["value"], served["value"], rtol=1e-6)
