"""Round trips of weekly and monthly datasets through the embedded service (the tests are
``tests/round_trips.py``'s, shared with the peer tests)."""

from __future__ import annotations

import pytest

from chaplab import ChapClient
from round_trips import (  # noqa: F401  (the shared tests, collected here)
    dataset_id,
    kind,
    test_a_dataset_csv_says_periods_as_people_read_them_and_uploads_again,
    test_a_dataset_frame_backtests_in_the_notebook,
    test_a_dataset_frame_reads_its_periods_and_goes_back_as_it_came,
)

pytestmark = pytest.mark.integration


@pytest.fixture
def server(client: ChapClient) -> ChapClient:
    """A client of the embedded service of the test session."""
    return client
