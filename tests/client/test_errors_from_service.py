"""The embedded service's refusals, as the client words them: once, in the caller's names."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chaplab.client import ChapClient, NotFoundError, UnprocessableEntityError

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChapClient]:
    from chaplab.service.app import create_app
    from chaplab.toolkit import BackgroundServer

    database = Path(tmp_path_factory.mktemp("errors_service")) / "chaplab.db"
    with (
        BackgroundServer(create_app(str(database), workers=1)) as server,
        ChapClient(server.url) as client,
    ):
        yield client


def test_an_unknown_dataset_is_said_once_with_the_argument_name(client: ChapClient) -> None:
    with pytest.raises(NotFoundError) as caught:
        client.create_evaluation("x", "naive_model", 9999)
    assert caught.value.message == "dataset_id: no dataset with id 9999"


def test_too_many_splits_are_blamed_on_n_splits(client: ChapClient) -> None:
    dataset = client.list_datasets()[0]
    with pytest.raises(UnprocessableEntityError) as caught:
        client.create_evaluation("x", "naive_model", dataset.id, n_periods=3, n_splits=500)
    assert caught.value.message.startswith("n_splits: is 500, too many for the data: ")
    assert caught.value.message.endswith("; at most 117 fit")
    assert "nSplits" not in str(caught.value) and caught.value.message.count("need") == 1


def test_a_misspelt_model_gets_did_you_mean(client: ChapClient) -> None:
    dataset = client.list_datasets()[0]
    with pytest.raises(NotFoundError) as caught:
        client.create_evaluation("x", "naive_modle", dataset.id)
    assert str(caught.value).endswith("did you mean 'naive_model'?")
    assert caught.value.message.count("naive_modle") == 1
