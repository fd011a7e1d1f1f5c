"""The panel's background work: triggers that arrive while a reload runs fold into one more
reload, which starts after the last of them; a widget's handler runs on the kernel's loop
whichever thread the browser's message arrives on."""

from __future__ import annotations

import asyncio
import threading

from chaplab.widgets._tasks import Coalescer, TaskKeeper, on_kernel_loop


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


def test_a_handler_called_on_another_thread_runs_on_the_loop_it_was_made_on() -> None:
    async def scenario() -> tuple[int, list[tuple[int, str]]]:
        calls: list[tuple[int, str]] = []
        handler = on_kernel_loop(lambda name: calls.append((threading.get_ident(), name)))
        handler("here")  # on the loop's own thread: at once
        elsewhere = threading.Thread(target=handler, args=("there",))
        elsewhere.start()
        elsewhere.join()
        assert [name for _, name in calls] == ["here"]  # scheduled on this loop, not run there
        await asyncio.sleep(0.01)
        return threading.get_ident(), calls

    home, calls = asyncio.run(scenario())
    assert calls == [(home, "here"), (home, "there")]


def test_a_handler_made_where_no_loop_runs_is_called_where_it_is_called() -> None:
    calls: list[int] = []
    handler = on_kernel_loop(lambda: calls.append(threading.get_ident()))
    other = threading.Thread(target=handler)
    other.start()
    other.join()
    assert calls == [other.ident]
