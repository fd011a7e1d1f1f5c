"""The further endpoints through ``AsyncChapClient``: the same operations, driven by asyncio."""

from __future__ import annotations

import asyncio

import pytest

from chaplab.client import AsyncChapClient, NotFoundError

from ..helpers import small_frame
from .conftest import Evaluated

pytestmark = pytest.mark.integration


def test_the_async_client_reaches_the_further_endpoints(
    async_client: AsyncChapClient, async_runner: asyncio.Runner, evaluated: Evaluated, unique: str
) -> None:
    async def scenario() -> None:
        dataset = await async_client.upload_dataset_csv(f"async {unique}", small_frame(n_years=1))
        frame, metrics, image = await asyncio.gather(
            async_client.dataset_frame(dataset.id),
            async_client.evaluation_metrics(evaluated.evaluation.id),
            async_client.evaluation_plot("last_split", evaluated.evaluation.id),
        )
        assert len(frame) == 24 and len(metrics.by_horizon) == 2
        assert image.data.startswith(b"\x89PNG")
        await async_client.delete_dataset(dataset.id)
        with pytest.raises(NotFoundError):
            await async_client.dataset_csv(dataset.id)

    async_runner.run(scenario())
