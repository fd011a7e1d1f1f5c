"""Deleting a dataset with what uses it: the evaluations and forecasts made from it are found
first, on every server, and either named in a ``ConflictError`` or, with ``force=True``,
deleted before it.

Our service refuses to delete a dataset in use; chap-core 2.5.1 deletes it and then cannot read
the evaluations and forecasts made from it (``_orphans``), so the client checks first on both."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from chaplab.client._capabilities import RouteCache
from chaplab.client._errors import ChapHTTPError, conflict_before_sending, with_hint
from chaplab.client._evaluations import Evaluations
from chaplab.client._plumbing import DATASETS, RequestBuilder, Resource, require_bool
from chaplab.client._predictions import Predictions
from chaplab.client._steps import Operation, RetryPolicy


class DatasetUser(NamedTuple):
    """An evaluation or a prediction (forecast) made from a dataset."""

    kind: Literal["evaluation", "prediction"]
    id: int
    name: str | None

    def __str__(self) -> str:
        return f"{self.kind} {self.id}" + (f" ({self.name!r})" if self.name else "")


@dataclass(frozen=True)
class DatasetDeletion:
    """What ``delete_dataset`` deleted: the dataset and, before it (``force=True``), the
    evaluations and predictions that used it (``deleted``)."""

    dataset_id: int
    deleted: tuple[DatasetUser, ...] = ()

    @property
    def evaluation_ids(self) -> list[int]:
        """The ids of the evaluations deleted with the dataset."""
        return [user.id for user in self.deleted if user.kind == "evaluation"]

    @property
    def prediction_ids(self) -> list[int]:
        """The ids of the predictions deleted with the dataset."""
        return [user.id for user in self.deleted if user.kind == "prediction"]

    def __str__(self) -> str:
        if not self.deleted:
            return f"deleted dataset {self.dataset_id}"
        return f"deleted {_listed(self.deleted)}, then dataset {self.dataset_id}"

    def __repr__(self) -> str:
        return f"DatasetDeletion({self})"


class DatasetDeletions(Resource):
    """``DELETE /v1/crud/datasets/{id}``, with the evaluations and predictions of the dataset
    found first (through ``evaluations`` and ``predictions``)."""

    def __init__(
        self,
        builder: RequestBuilder,
        retry: RetryPolicy,
        routes: RouteCache,
        evaluations: Evaluations,
        predictions: Predictions,
    ) -> None:
        super().__init__(builder, retry, routes)
        self._evaluations = evaluations
        self._predictions = predictions

    def delete_dataset(
        self, dataset_id: int | str, force: bool = False
    ) -> Operation[DatasetDeletion]:
        """Delete a dataset (by id or name) that no evaluation or prediction uses; returns
        what was deleted.

        Where evaluations or predictions (forecasts) were made from it, nothing is deleted:
        ``ConflictError`` names them (names and ids). With ``force=True`` they are deleted
        first, then the dataset, and the answer lists them.

        The client finds them itself, on every server: our service refuses such a delete
        too, while chap-core 2.5.1 would delete the dataset and then fail (500) to read them,
        or to list any evaluations, and give their dataset's id to the next dataset stored.
        On chap-core this check is best effort: its prediction list has no dataset filter (the
        whole list is read), its evaluation list leaves out the runs of its baseline models
        (the client adds them from the job list, as ``list_evaluations`` does), and a job
        still running on the dataset, such as the baseline runs chap-core queues with a
        dataset's first evaluation, stores its evaluation after the check. chap-core 2.5.1 on
        SQLite keeps the dataset's backtest specifications, which then no list shows
        (``list_backtest_specifications``)."""
        dataset_id = yield from self._id_of("dataset_id", dataset_id, DATASETS)
        require_bool("force", force)
        evaluations = yield from self._evaluations.list_evaluations(dataset_id=dataset_id)
        predictions = yield from self._predictions.list_predictions()
        users = [
            *(
                DatasetUser("prediction", p.id, p.name)
                for p in predictions
                if p.dataset_id == dataset_id
            ),
            *(DatasetUser("evaluation", e.id, e.name) for e in evaluations),
        ]
        path = f"{DATASETS.path}/{dataset_id}"
        if users and not force:
            raise conflict_before_sending(
                f"dataset {dataset_id} is used by {_listed(users)}; delete those first, or "
                f"delete_dataset({dataset_id}, force=True) to delete them with it",
                method="DELETE",
                url=self._builder.url(path),
            )
        deleted: list[DatasetUser] = []
        try:
            for user in users:
                if user.kind == "prediction":
                    yield from self._predictions.delete_prediction(user.id)
                else:
                    yield from self._evaluations.delete_evaluation(user.id)
                deleted.append(user)
            yield from self._request("DELETE", path)
        except ChapHTTPError as error:
            if deleted:
                raise with_hint(error, f"deleted before this: {_listed(deleted)}") from None
            raise
        return DatasetDeletion(dataset_id, tuple(deleted))


def _listed(users: Sequence[DatasetUser]) -> str:
    """``evaluations 3 ('a'), 4 ('b') and prediction 7 ('p')``."""
    groups = []
    for kind in ("evaluation", "prediction"):
        of_kind = [user for user in users if user.kind == kind]
        if of_kind:
            named = ", ".join(str(user).removeprefix(f"{kind} ") for user in of_kind)
            groups.append(f"{kind}{'s' if len(of_kind) > 1 else ''} {named}")
    return " and ".join(groups)
