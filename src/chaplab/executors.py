"""Where a backtest's tasks run: the kernel's threads, or any ``concurrent.futures.Executor``.

A task is a coroutine function and its arguments (:class:`Task`); it answers a result and,
for the tasks that others depend on, a model. :func:`run_tasks` runs a list of them:

- without an executor (or with a ``ThreadPoolExecutor``) on a private event loop in a thread of
  its own: async model functions are awaited there, sync ones run in the thread pool, and
  nothing is pickled. Without an executor that pool has :func:`kernel_threads` threads: one
  under the GIL, where two threads computing in Python take longer than one;
- on any other executor (a process pool, a Dask cluster's ``Client.get_executor()`` or the
  ``Client`` itself) each task is shipped by value with cloudpickle, as Dask ships functions,
  so a function defined in a notebook cell reaches another process: :func:`run_shipped` runs
  it there (async functions under ``asyncio.run``) and answers its result, or its failure as
  a value, pickled the same way.

A task that needs another's model starts when that model is there. At most ``window`` tasks
are in flight (about two per worker), so a time budget stops a tune between configurations
and the executor never holds every payload at once. The calling thread counts the finished
tasks on a tqdm bar, the only place the bar is touched. Every failure is kept (an executor's
lost worker too, named by the task it ran): with ``errors="raise"`` the first one cancels what
has not started, with ``errors="keep"`` the rest runs on.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import heapq
import inspect
import os
import queue
import sys
import threading
import time
import traceback
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from chaplab.errors import Frame, own_frame_list

Errors = Literal["raise", "keep"]
ERRORS = ("raise", "keep")

WHAT_CANNOT_GO = (
    "what cloudpickle cannot copy cannot go to another process: an open connection, file, "
    "lock, thread or event loop a function closes over (such functions run with executor=None)"
)
"""The one sentence on what a process pool or a Dask cluster cannot be sent."""
UNKNOWN_WORKERS = 8
"""The workers assumed of an executor that does not say how many it has."""


class Calls:
    """How a task calls a model's functions: sync ones in the kernel's thread pool, async
    ones awaited on the task's loop; ``private`` is False there, since a model one task trained
    is handed to the others as it is and each must copy it."""

    private = False

    def __init__(self, pool: concurrent.futures.Executor) -> None:
        self._pool = pool

    async def __call__(
        self, function: Callable[..., Any], args: tuple[Any, ...], keywords: dict[str, Any]
    ) -> Any:
        if inspect.iscoroutinefunction(function):
            return await function(*args, **keywords)
        loop = asyncio.get_running_loop()
        answer = await loop.run_in_executor(self._pool, lambda: function(*args, **keywords))
        return await answer if inspect.isawaitable(answer) else answer


class InlineCalls(Calls):
    """Calls on a worker of an executor: the task's own thread runs its sync functions, and what
    it was handed arrived unpickled, its own copy (``private``)."""

    private = True

    def __init__(self) -> None:
        pass

    async def __call__(
        self, function: Callable[..., Any], args: tuple[Any, ...], keywords: dict[str, Any]
    ) -> Any:
        answer = function(*args, **keywords)
        return await answer if inspect.isawaitable(answer) else answer


Perform = Callable[..., Awaitable[tuple[Any, Any]]]
"""``perform(*args, model, calls) -> (result, model for the tasks that need it)``."""


@dataclass(frozen=True)
class Task:
    """One unit of work: ``build()`` gives the coroutine function and its arguments (made when
    the task starts, so payloads exist only while in flight); ``needs`` is the index of the task
    whose model it takes; ``group`` the configuration it belongs to (a time budget starts no new
    group); ``counted`` whether the progress bar counts it; ``error(problem)`` the error naming
    the task, for a problem outside the model's functions."""

    build: Callable[[], tuple[Perform, tuple[Any, ...]]]
    error: Callable[[str], Exception]
    name: str
    group: int = 0
    needs: int | None = None
    counted: bool = True
    functions: tuple[Callable[..., Any], ...] = ()
    """The model's functions it runs: where their code came from names a remote failure's
    frames (cloudpickle ships code without its file name)."""


@dataclass
class Run:
    """What :func:`run_tasks` did: each finished task's result, each failed task's error (a
    task whose model's training failed fails too), the tasks a time budget left out."""

    results: dict[int, Any] = field(default_factory=dict)
    failures: dict[int, Exception] = field(default_factory=dict)
    not_run: set[int] = field(default_factory=set)


@dataclass(frozen=True)
class Progress:
    """The bar: its description, what it counts, and whether it is shown."""

    description: str
    unit: str
    shown: bool = True


def run_tasks(
    tasks: Sequence[Task],
    *,
    executor: Any = None,
    errors: Errors = "raise",
    progress: Progress,
    time_budget: float | None = None,
) -> Run:
    """Run ``tasks`` (see the module's docstring) and answer what happened; with
    ``errors="raise"`` the first failure stops the run (what has not started is cancelled) and
    the :class:`Run` holds it and every result that came before."""
    from tqdm.auto import tqdm

    executor = _executor_of(executor)
    events: queue.Queue[tuple[str, int, Exception | None]] = queue.Queue()
    loop = asyncio.new_event_loop()
    runner = threading.Thread(target=loop.run_forever, name="chaplab-tasks", daemon=True)
    runner.start()
    own_pool: concurrent.futures.ThreadPoolExecutor | None = None
    if executor is None:
        own_pool = executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=max(1, min(len(tasks), kernel_threads())),
            thread_name_prefix="chaplab-backtest",
        )
    scheduler = _Scheduler(tasks, executor, errors, time_budget, events)
    finished = asyncio.run_coroutine_threadsafe(scheduler.run(), loop)
    counted = sum(task.counted for task in tasks)
    failed = 0
    try:
        bar = tqdm(
            total=counted,
            desc=progress.description,
            unit=progress.unit,
            disable=not progress.shown,
        )
        with bar:
            while True:
                try:
                    kind, index, error = events.get(timeout=0.5)
                except queue.Empty:  # a short wait, so that an interrupt is taken at once
                    continue
                if kind == "end":
                    break
                if kind == "failed":
                    failed += 1
                    if errors == "raise":
                        if failed == 1:  # the failure raised
                            bar.set_description(
                                f"{progress.description} failed at {tasks[index].name}"
                            )
                    else:
                        bar.set_postfix_str(f"{failed} failed", refresh=False)
                        bar.update(int(tasks[index].counted))
                elif kind == "done":
                    bar.update(int(tasks[index].counted))
        return finished.result()
    finally:
        if not finished.done():
            finished.cancel()
            asyncio.run_coroutine_threadsafe(_settle(), loop).result()
        if own_pool is not None:
            own_pool.shutdown(wait=True, cancel_futures=True)
        loop.call_soon_threadsafe(loop.stop)
        runner.join()
        loop.close()


def kernel_threads() -> int:
    """How many sync model calls run at once without an executor: one where the interpreter
    has a GIL (two threads computing in Python take longer than one, by a third in figure 16 of
    ``make bench``, and a pandas model gains nothing), every core where it has none (a
    free-threaded build). A ``ThreadPoolExecutor`` given as the executor sets its own number,
    for a model whose calls leave Python (numpy's larger operations, I/O)."""
    gil_enabled: Callable[[], bool] = getattr(sys, "_is_gil_enabled", lambda: True)
    return 1 if gil_enabled() else os.cpu_count() or 1


async def _settle() -> None:
    """Cancel every other task of the running loop and wait until they have stopped."""
    others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in others:
        task.cancel()
    await asyncio.gather(*others, return_exceptions=True)


def _executor_of(executor: Any) -> concurrent.futures.Executor | None:
    """The executor to ship tasks to (a Dask ``Client`` gives its own), None for the kernel's
    threads (a ``ThreadPoolExecutor`` is used as the thread pool: nothing is pickled)."""
    if executor is None:
        return None
    get_executor = getattr(executor, "get_executor", None)
    if callable(get_executor) and not isinstance(executor, concurrent.futures.Executor):
        executor = get_executor()
    if not isinstance(executor, concurrent.futures.Executor):
        from chaplab.errors import ArgumentTypeError

        raise ArgumentTypeError(
            "executor must be a concurrent.futures.Executor (a process pool, a Dask client's "
            f"get_executor()) or a Dask Client, got {type(executor).__name__}"
        )
    return executor


def shipped(executor: concurrent.futures.Executor | None) -> bool:
    """Whether tasks on ``executor`` go by value to other processes."""
    return executor is not None and not isinstance(executor, concurrent.futures.ThreadPoolExecutor)


def _workers(executor: concurrent.futures.Executor) -> int:
    """How many tasks ``executor`` runs at once, as far as it says."""
    client = getattr(executor, "_client", None)  # a Dask cluster's executor
    if client is not None:
        try:
            return max(1, int(sum(client.nthreads().values())))
        except Exception:  # a cluster that cannot say now: assume
            return UNKNOWN_WORKERS
    count = getattr(executor, "_max_workers", None)
    return count if isinstance(count, int) and count > 0 else UNKNOWN_WORKERS


class _Scheduler:
    """Starts tasks in order as their models and the window allow, on the private loop; tells
    the calling thread of each end through ``events``."""

    def __init__(
        self,
        tasks: Sequence[Task],
        executor: concurrent.futures.Executor,
        errors: Errors,
        time_budget: float | None,
        events: queue.Queue[tuple[str, int, Exception | None]],
    ) -> None:
        self.tasks, self.errors, self.events = tasks, errors, events
        self.ship = shipped(executor)
        self.executor = executor
        workers = self.workers = _workers(executor)
        window = 2 * workers if self.ship else 4 * workers
        self.window = window if self.ship or time_budget is not None else max(window, 32)
        self.deadline = None if time_budget is None else time.monotonic() + time_budget
        self.calls = None if self.ship else Calls(executor)
        self.run_state = Run()
        self.models: dict[int, Any] = {}
        self.dependents: dict[int, list[int]] = {}
        self.members: dict[int, list[int]] = {}
        for index, task in enumerate(tasks):
            self.members.setdefault(task.group, []).append(index)
            if task.needs is not None:
                self.dependents.setdefault(task.needs, []).append(index)
        self.ready = [index for index, task in enumerate(tasks) if task.needs is None]
        heapq.heapify(self.ready)
        self.started_groups: set[int] = set()
        self.closed_groups: set[int] = set()
        self.remaining = {group: len(members) for group, members in self.members.items()}

    async def run(self) -> Run:
        in_flight: dict[asyncio.Future[Any], int] = {}
        try:
            return await self._run(in_flight)
        finally:
            for future in in_flight:
                future.cancel()
            if in_flight:
                await asyncio.gather(*in_flight, return_exceptions=True)
            self.events.put(("end", -1, None))

    async def _run(self, in_flight: dict[asyncio.Future[Any], int]) -> Run:
        while True:
            self._start_ready(in_flight)
            if not in_flight:
                return self.run_state
            done, _ = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
            for future in sorted(done, key=in_flight.__getitem__):
                index = in_flight.pop(future)
                self._finish(index, future)
            if self.errors == "raise" and self.run_state.failures:
                return self.run_state

    def _start_ready(self, in_flight: dict[asyncio.Future[Any], int]) -> None:
        """Start ready tasks in order while the window has room; with a time budget, a new
        group only while fewer groups than workers are unfinished and the budget lasts (the
        first group always), so the budget stops the run between groups."""
        deferred = []
        while self.ready and len(in_flight) < self.window:
            index = heapq.heappop(self.ready)
            group = self.tasks[index].group
            if group in self.closed_groups:
                continue
            if group not in self.started_groups:
                if self.deadline is not None:
                    if self.started_groups and time.monotonic() >= self.deadline:
                        self._close(group)
                        continue
                    unfinished = sum(self.remaining[g] > 0 for g in self.started_groups)
                    if unfinished >= self.workers:
                        deferred.append(index)
                        continue
                self.started_groups.add(group)
            in_flight[asyncio.ensure_future(self._perform(index))] = index
        for index in deferred:
            heapq.heappush(self.ready, index)

    def _close(self, group: int) -> None:
        """Leave out every task of a group the time budget does not start."""
        self.closed_groups.add(group)
        self.run_state.not_run.update(self.members[group])

    def _finish(self, index: int, future: asyncio.Future[Any]) -> None:
        self.remaining[self.tasks[index].group] -= 1
        error = future.exception()
        if error is None:
            result, model = future.result()
            if index in self.dependents:
                self.models[index] = model
                for dependent in self.dependents[index]:
                    heapq.heappush(self.ready, dependent)
            if self.tasks[index].counted:
                self.run_state.results[index] = result
            self.events.put(("done", index, None))
            return
        failure = error if isinstance(error, Exception) else RuntimeError(str(error))
        self._fail(index, failure)

    def _fail(self, index: int, error: Exception) -> None:
        self.run_state.failures[index] = error
        self.events.put(("failed", index, error))
        for dependent in self.dependents.get(index, []):
            self.remaining[self.tasks[dependent].group] -= 1
            self._fail(
                dependent,
                self.tasks[dependent].error(
                    f"did not run: the training it needs ({self.tasks[index].name}) failed"
                ),
            )

    async def _perform(self, index: int) -> tuple[Any, Any]:
        task = self.tasks[index]
        model = self.models.get(task.needs) if task.needs is not None else None
        perform, args = task.build()
        if not self.ship:
            assert self.calls is not None
            return await perform(*args, model, self.calls)
        return await _ship(self.executor, task, perform, args, model)


async def _ship(
    executor: concurrent.futures.Executor,
    task: Task,
    perform: Perform,
    args: tuple[Any, ...],
    model: Any,
) -> tuple[Any, Any]:
    """Run a task on ``executor``, by value; its model stays pickled (bytes) in the kernel."""
    import cloudpickle

    try:
        payload = cloudpickle.dumps((perform, args, model))
    except Exception as error:
        raise task.error(
            f"cannot be sent to the executor ({type(error).__name__}: {error}); {WHAT_CANNOT_GO}"
        ) from error
    try:
        answer = await asyncio.wrap_future(executor.submit(run_shipped, payload))
    except Exception as error:
        raise task.error(
            f"was lost: the executor could not run it ({type(error).__name__}: {error})"
        ) from error
    outcome = cloudpickle.loads(answer)
    if outcome[0] == "done":
        return outcome[1], outcome[2]
    if outcome[0] == "lost":
        raise task.error(outcome[1])
    frames = _named_frames(outcome[3], task.functions)
    raise _received_failure(outcome[1], outcome[2], frames)


def _dumps(value: Any) -> bytes:
    import cloudpickle

    return bytes(cloudpickle.dumps(value))


class RemoteTraceback(Exception):
    """The traceback of an exception raised in another process, as text (its ``str``)."""


def run_shipped(payload: bytes) -> bytes:
    """Run a shipped task where the executor runs it and answer, pickled, ``("done", result,
    model)`` (the model pickled on its own), ``("failed", error, traceback text, own frames)``
    or ``("lost", problem)`` when the task could not run or answer at all."""
    import cloudpickle

    try:
        perform, args, kept = cloudpickle.loads(payload)
        model = None if kept is None else cloudpickle.loads(kept)
    except Exception as error:
        return _dumps(("lost", _unpacking_problem(error)))
    try:
        result, trained = asyncio.run(perform(*args, model, InlineCalls()))
    except Exception as error:
        return _failure_answer(error)
    try:
        kept = None if trained is None else cloudpickle.dumps(trained)
        return _dumps(("done", result, kept))
    except Exception as error:
        return _dumps(
            (
                "lost",
                f"answered what cannot be sent back to the kernel ({type(error).__name__}: "
                f"{error}); {WHAT_CANNOT_GO}",
            )
        )


def _unpacking_problem(error: Exception) -> str:
    hint = ""
    if isinstance(error, ModuleNotFoundError):
        hint = (
            "; a function of your own module goes by reference: install the module where the "
            "workers run, or call cloudpickle.register_pickle_by_value(module) before"
        )
    return f"could not be unpacked on the worker ({type(error).__name__}: {error}){hint}"


def _failure_answer(error: Exception) -> bytes:
    """A failed task's answer: the error and its cause by value where they pickle (else as
    text), the cause's traceback as text and its frames in the caller's own code."""
    import cloudpickle

    cause = error.__cause__ if error.__cause__ is not None else error
    text = "".join(traceback.format_exception(cause))
    frames = own_frame_list(cause.__traceback__)
    try:
        pickled = cloudpickle.dumps((error, error.__cause__))
    except Exception:
        pickled = cloudpickle.dumps((RuntimeError(str(error)), None))
    return _dumps(("failed", pickled, text, frames))


SHIPPED_CODE = "<dynamic-code>"
"""The file name cloudpickle gives the code it ships by value."""


def _named_frames(frames: list[Frame], functions: Sequence[Callable[..., Any]]) -> list[Frame]:
    """``frames`` with the file name of the code shipped by value put back: found among
    ``functions`` and what they call (their globals and closures) by function name and line."""
    if not any(filename == SHIPPED_CODE for filename, _, _ in frames):
        return frames
    origins = _code_origins(functions)
    named = []
    for filename, line, function in frames:
        if filename == SHIPPED_CODE:
            filename = next(
                (
                    origin
                    for name, first, last, origin in origins
                    if name == function and first <= line <= last
                ),
                filename,
            )
        named.append((filename, line, function))
    return named


def _code_origins(functions: Sequence[Callable[..., Any]]) -> list[tuple[str, int, int, str]]:
    """``(function name, first line, last line, file name)`` of the code of ``functions`` and
    of the functions they reach through their globals and closures."""
    origins: list[tuple[str, int, int, str]] = []
    seen: set[int] = set()
    stack = list(functions)
    while stack:
        function = stack.pop()
        code = getattr(function, "__code__", None)
        if code is None or id(code) in seen:
            continue
        seen.add(id(code))
        codes = [code]
        while codes:
            current = codes.pop()
            lines = [line for _, _, line in current.co_lines() if line is not None]
            if lines:
                origins.append((current.co_name, min(lines), max(lines), current.co_filename))
            codes.extend(const for const in current.co_consts if inspect.iscode(const))
        namespace = getattr(function, "__globals__", {})
        stack.extend(
            namespace[name] for name in code.co_names if inspect.isfunction(namespace.get(name))
        )
        for cell in getattr(function, "__closure__", None) or ():
            try:
                contents = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if inspect.isfunction(contents):
                stack.append(contents)
    return origins


def _received_failure(pickled: bytes, text: str, frames: list[Frame]) -> Exception:
    """The failure a worker answered, rebuilt: its cause's ``__cause__`` is the remote
    traceback, and ``remote_frames`` its frames in the caller's own code."""
    import cloudpickle

    try:
        error, cause = cloudpickle.loads(pickled)
    except Exception as problem:  # the error's class is not importable here
        error, cause = RuntimeError(f"{text.strip().splitlines()[-1]} ({problem})"), None
    remote = RemoteTraceback(f'\n"""\n{text}"""')
    if cause is not None:
        cause.__cause__ = remote
        error.__cause__ = cause
    else:
        error.__cause__ = remote
    error.remote_frames = frames
    return error if isinstance(error, Exception) else RuntimeError(str(error))
