"""chap-core 2.5.1 runs every configuration of a baseline template as a baseline of each
specification; a leaderboard scores the chosen models and the baselines, nothing else."""

from __future__ import annotations

from chaplab import ChapClient
from chaplab.client import Dataset, ModelSpec

BASELINES = ("persistence", "seasonal_median", "global_median")
"""chap-core 2.5.1's built-in templates with the baseline role."""
UNCHOSEN = "chaplab-unchosen"


def test_a_configuration_nobody_chose_is_no_leaderboard_row(
    peer_client: ChapClient, peer_dataset: Dataset, naive_model: ModelSpec
) -> None:
    names = {model.name for model in peer_client.list_configured_models() if not model.archived}
    if f"seasonal_median:{UNCHOSEN}" not in names:
        template = next(
            t for t in peer_client.list_model_templates() if t.name == "seasonal_median"
        )
        peer_client.create_configured_model(UNCHOSEN, template.id, {})
    detail = peer_client.run_backtests(
        "peer leaderboard rows",
        [naive_model.name, *BASELINES],
        peer_dataset.id,
        n_periods=3,
        n_splits=2,
        timeout=600,
    )
    run_by_server = {ref.configured_model.name for ref in detail.baselines}
    assert f"seasonal_median:{UNCHOSEN}" in run_by_server  # the server runs it as a baseline
    assert set(detail.baseline_runs()) == set(BASELINES)
    chosen = detail.baseline_runs([f"seasonal_median:{UNCHOSEN}"])
    assert set(chosen) == {*BASELINES, f"seasonal_median:{UNCHOSEN}"}
