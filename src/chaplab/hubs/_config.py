"""A hub's configuration as chaplab reads it: its connection (``hubdata``), ``tasks.json``'s
rounds, targets, task ids and output types, and its locations file.

``hubdata.connect_hub`` reaches a local folder or a cloud bucket and reads ``admin.json`` and
``tasks.json``; chaplab reads the locations file (``auxiliary-data/locations.csv``, not part of
the hubverse's standard, so optional) through the same pyarrow file system.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from chaplab.errors import ArgumentError, ArgumentTypeError

QUANTILE = "quantile"
SAMPLE = "sample"
PMF = "pmf"
MEDIAN = "median"
MEAN = "mean"
CDF = "cdf"
READ_OUTPUT_TYPES = (QUANTILE, SAMPLE, PMF, MEDIAN, MEAN)
"""The output types chaplab reads; ``cdf`` is refused (see :func:`HubConfig.target_task`)."""

TARGET = "target"
HORIZON = "horizon"
LOCATION = "location"
TARGET_END_DATES = ("target_end_date", "target_date")
"""The names hubs give the date of the forecast week (the hubverse's examples use both)."""
LOCATIONS_FILE = "auxiliary-data/locations.csv"
TOTAL_TOLERANCE = 0.02
"""A location is the total of the others when its population is their sum within 2%."""


def hub_path(hub: Any) -> Any:
    """What ``hubdata.connect_hub`` takes: an absolute local path, or a URI as given."""
    if isinstance(hub, os.PathLike):
        return Path(hub).resolve()
    if isinstance(hub, str):
        return hub if "://" in hub else Path(hub).resolve()
    raise ArgumentTypeError(
        f"hub must be a folder or a URI such as 's3://bucket', got {type(hub).__name__}"
    )


@dataclass(frozen=True)
class ModelTask:
    """One model task of a round: its task ids' values and its output types."""

    task_ids: Mapping[str, Mapping[str, Any]]
    output_types: Mapping[str, Mapping[str, Any]]
    metadata: Sequence[Mapping[str, Any]]

    def values(self, task_id: str) -> list[Any]:
        """The required and optional values of a task id (required first)."""
        spec = self.task_ids[task_id]
        return [*(spec.get("required") or []), *(spec.get("optional") or [])]

    def required(self, task_id: str) -> list[Any]:
        """The values every submission must have."""
        return list(self.task_ids[task_id].get("required") or [])

    def output_type_ids(self, output_type: str) -> list[Any]:
        """The required and optional ``output_type_id`` values of an output type."""
        ids = self.output_types[output_type].get("output_type_id") or {}
        return [*(ids.get("required") or []), *(ids.get("optional") or [])]

    def required_output_type_ids(self, output_type: str) -> list[Any]:
        """The ``output_type_id`` values a submission of this output type must have."""
        ids = self.output_types[output_type].get("output_type_id") or {}
        return list(ids.get("required") or [])

    @property
    def target_type(self) -> str | None:
        """``continuous``, ``ordinal``, ``nominal``, ... from the target's metadata."""
        return self.metadata[0].get("target_type") if self.metadata else None

    @property
    def time_unit(self) -> str | None:
        """The unit of the horizon (``week`` for weekly hubs)."""
        return self.metadata[0].get("time_unit") if self.metadata else None


@dataclass
class HubConfig:
    """A hub's connection and configuration, read once per call of a reader or writer."""

    connection: Any
    path: Any
    tasks: Mapping[str, Any]
    admin: Mapping[str, Any]

    @classmethod
    def connect(cls, hub: Any) -> HubConfig:
        """Connect with ``hubdata`` (ArgumentError naming the hub when that fails)."""
        import hubdata

        if isinstance(hub, hubdata.HubConnection):
            connection = hub
        else:
            try:
                connection = hubdata.connect_hub(hub_path(hub))
            except RuntimeError as error:
                raise ArgumentError(f"hub {str(hub)!r} is not a forecast hub: {error}") from None
        return cls(connection, connection.hub_path, connection.tasks, connection.admin)

    @cached_property
    def _filesystem(self) -> tuple[Any, str]:
        from pyarrow import fs

        filesystem, base = fs.FileSystem.from_uri(str(self.path))
        return filesystem, str(base)

    def filesystem(self) -> Any:
        """The hub's pyarrow file system (local, S3, GCS), found as ``hubdata`` finds it."""
        return self._filesystem[0]

    def base(self) -> str:
        """The hub's root folder on :meth:`filesystem`."""
        return self._filesystem[1]

    @property
    def round_id(self) -> str:
        """The task id that names a round (``reference_date``, ``origin_date``, ...);
        ArgumentError for a hub whose rounds are not named by a task id."""
        rounds = self.tasks["rounds"]
        if not all(r.get("round_id_from_variable") for r in rounds):
            raise ArgumentError(
                "hub: its rounds are named by fixed round ids, not by a date task id; chaplab "
                "reads weekly hubs whose rounds are named by a reference date"
            )
        return str(rounds[0]["round_id"])

    def model_tasks(self, round_id: str | None = None) -> list[ModelTask]:
        """Every round's model tasks, or those of the round ``round_id`` names."""
        tasks = []
        for round_ in self.tasks["rounds"]:
            for task in round_["model_tasks"]:
                model_task = ModelTask(
                    task["task_ids"], task["output_type"], task.get("target_metadata") or []
                )
                if round_id is None or str(round_id) in map(str, model_task.values(self.round_id)):
                    tasks.append(model_task)
        return tasks

    def targets(self) -> list[str]:
        """The values of the ``target`` task id, in the order of ``tasks.json``."""
        found: list[str] = []
        for task in self.model_tasks():
            for value in task.values(TARGET) if TARGET in task.task_ids else []:
                if value not in found:
                    found.append(str(value))
        return found

    def target_task(self, target: str | None, round_id: str | None = None) -> ModelTask:
        """The model task of ``target`` (any round's, or ``round_id``'s): its task ids and
        output types. ``target=None`` names the hub's only target. ArgumentError naming the
        target for one the hub lacks, or whose only output type is ``cdf``."""
        targets = self.targets()
        if target is None:
            if len(targets) > 1:
                raise ArgumentError(
                    f"target: the hub has {len(targets)} targets ({listed(targets)}); name one"
                )
            target = targets[0] if targets else None
        tasks = [
            task
            for task in self.model_tasks(round_id)
            if target is None or target in map(str, task.values(TARGET))
        ]
        if not tasks:
            where = f" in round {round_id}" if round_id is not None else ""
            raise ArgumentError(
                f"target {target!r} is not a target of the hub{where}: its targets are "
                f"{listed(targets)}"
            )
        task = tasks[0]
        offered = set().union(*(t.output_types for t in tasks))
        if not offered & set(READ_OUTPUT_TYPES):
            raise ArgumentError(
                f"target {target!r} has only {listed(sorted(offered))} output, which chaplab "
                "does not read: a cdf gives probabilities at fixed values of the target, not "
                "quantiles, samples or category probabilities (quantile and sample output "
                "become quantile frames, pmf a pmf frame, median and mean a frame of points)"
            )
        return ModelTask(
            task.task_ids,
            {name: spec for t in tasks for name, spec in t.output_types.items()},
            task.metadata,
        )

    def target_name(self, task: ModelTask, target: str | None) -> str | None:
        """The target asked for, or the hub's only one (None for a hub without targets)."""
        if target is not None or TARGET not in task.task_ids:
            return target
        return self.targets()[0]

    def target_end_date(self, task: ModelTask) -> str | None:
        """The task id holding the forecast week's end date, if the hub has one."""
        return next((name for name in TARGET_END_DATES if name in task.task_ids), None)

    def rounds(self) -> list[str]:
        """Every round's id (reference dates as ``YYYY-MM-DD``), in time order."""
        values = {str(v) for task in self.model_tasks() for v in task.values(self.round_id)}
        return sorted(values)

    def round_date(self, round_id: str | datetime.date, what: str = "round_id") -> str:
        """A round id as the hub spells it; ArgumentError naming ``what`` for a round the hub
        lacks."""
        text = round_id.isoformat() if isinstance(round_id, datetime.date) else str(round_id)
        rounds = self.rounds()
        if text not in rounds:
            raise ArgumentError(
                f"{what} {text!r} is not a round of the hub: its rounds are {listed(rounds)}"
            )
        return text

    @cached_property
    def locations(self) -> dict[str, dict[str, str]]:
        """The locations file's rows by location code (empty when the hub has none)."""
        import pyarrow.csv as pa_csv
        from pyarrow import fs

        path = f"{self.base()}/{LOCATIONS_FILE}"
        filesystem = self.filesystem()
        if filesystem.get_file_info(path).type == fs.FileType.NotFound:
            return {}
        with filesystem.open_input_stream(path) as stream:
            table = pa_csv.read_csv(
                stream,
                convert_options=pa_csv.ConvertOptions(column_types={LOCATION: "string"}),
            )
        rows = table.to_pylist()
        return {str(row[LOCATION]): {k: str(v) for k, v in row.items()} for row in rows}

    def location_names(self) -> dict[str, str]:
        """Location code -> its name (``location_name`` of the locations file)."""
        return {code: row.get("location_name") or code for code, row in self.locations.items()}

    def totals(self) -> set[str]:
        """The locations that are the total of the others: whose population (locations file)
        is the others' sum within 2%. None without a ``population`` column."""
        populations: dict[str, float] = {}
        for code, row in self.locations.items():
            try:
                populations[code] = float(row["population"])
            except (KeyError, TypeError, ValueError):
                return set()
        whole = sum(populations.values())
        return {
            code
            for code, population in populations.items()
            if population > 0 and abs(whole - 2 * population) <= TOTAL_TOLERANCE * population
        }

    def model_ids(self) -> list[str]:
        """The models with output in the hub (its model output folder's subfolders)."""
        from pyarrow import fs

        filesystem = self.filesystem()
        folder = str(self.connection.model_output_dir)
        infos = filesystem.get_file_info(fs.FileSelector(folder, allow_not_found=True))
        return sorted(info.base_name for info in infos if info.type == fs.FileType.Directory)

    def file_formats(self) -> list[str]:
        """The model-output file formats the hub accepts (``admin.json``'s ``file_format``)."""
        return [str(name) for name in self.admin.get("file_format", ["csv"])]


def listed(values: Iterable[Any]) -> str:
    """Values as a reader sees them in a sentence: quoted, comma-separated."""
    return ", ".join(repr(str(value)) for value in values)
