"""The panel's background work: triggers that arrive while a reload runs fold into one more
reload, which starts after the last of them."""

from __future__ import annotations

import asyncio

from chaplab.widgets._tasks import Coalescer, TaskKeeper


def test_triggers_during_a_run_fold_into_one_more_run_that_sees_the_last_change() -> None:
    async def scenario() -> list[int]:
        keeper = TaskKeeper(on_error=lambda error: (_ for _ in ()).throw(error))
        version = 0
        seen: list[int] = []

        async def reload() -> None:
            seen.append(version)
            await asyncio.sleep(0.01)

        coalescer = Coalescer(reload, keeper)
        coalescer.trigger()
        await asyncio.sleep(0)  # the first reload has begun
        for _ in range(5):  # five jobs end while the first reload runs
            version += 1
            coalescer.trigger()
            await asyncio.sleep(0)
        await keeper.wait()
        version += 1
        coalescer.trigger()  # a later job, after the reloads ended: a run of its own
        await keeper.wait()
        return seen

    assert asyncio.run(scenario()) == [0, 5, 6]


def test_a_failed_run_is_reported_and_the_next_trigger_runs_again() -> None:
    async def scenario() -> tuple[list[str], int]:
        errors: list[str] = []
        keeper = TaskKeeper(on_error=lambda error: errors.append(str(error)))
        runs = 0

        async def reload() -> None:
            nonlocal runs
            runs += 1
            if runs == 1:
                raise RuntimeError("the service did not answer")

        coalescer = Coalescer(reload, keeper)
        coalescer.trigger()
        await keeper.wait()
        coalescer.trigger()
        await keeper.wait()
        return errors, runs

    assert asyncio.run(scenario()) == (["the service did not answer"], 2)
