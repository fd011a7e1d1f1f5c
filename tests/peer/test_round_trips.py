"""Round trips of weekly and monthly datasets through chap-core 2.5.1, whose dataset CSV and
frames write a week as its dates (``2021-01-04/2021-01-10``) and a month as ``2021-01`` (the
tests are ``tests/round_trips.py``'s, shared with the embedded service's)."""

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


@pytest.fixture
def server(peer_client: ChapClient) -> ChapClient:
    """A client of the chap-core at ``CHAP_URL``."""
    return peer_client
