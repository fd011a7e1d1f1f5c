"""Records a server cannot read because their dataset was deleted: chap-core 2.5.1 deletes a
dataset that evaluations or predictions use, and then answers 500 for each of them and for
every list holding one. The client names them and says how to remove them, in one sentence.

The client refuses such a delete itself (``delete_dataset``), so these records come from
another client, or from a chaplab before it did."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chaplab.client._errors import ChapHTTPError, NotFoundError, OrphanedRecordError

if TYPE_CHECKING:
    from chaplab.client._jobs import Job
    from chaplab.client._steps import Operation


@dataclass(frozen=True)
class OrphanKind:
    """A kind of record that can lose its dataset: its name and the calls that remove one or
    several of them."""

    noun: str
    plural: str
    remove_one: str
    """The call removing one, ``{}`` standing for its id."""
    remove_several: str
    """The call removing several, ``{}`` standing for the list of their ids."""


EVALUATIONS = OrphanKind(
    "evaluation", "evaluations", "client.delete_evaluation({})", "client.delete_evaluations({})"
)
PREDICTIONS = OrphanKind(
    "prediction",
    "predictions",
    "client.delete_prediction({})",
    "client.delete_prediction(id) for each id of {}",
)
_DELETED = "a dataset that was deleted"


def orphaned_record(error: ChapHTTPError, kind: OrphanKind, record_id: int) -> OrphanedRecordError:
    """The error for reading the record ``record_id`` whose dataset is gone."""
    sentence = (
        f"{kind.noun} {record_id} refers to {_DELETED}, so the server cannot read it; remove "
        f"it with {kind.remove_one.format(record_id)}"
    )
    return OrphanedRecordError(sentence, kind=kind.noun, ids=[record_id], cause=error)


def orphaned_list(
    error: ChapHTTPError, kind: OrphanKind, broken: Sequence[tuple[int, str | None]]
) -> OrphanedRecordError:
    """The error for a list of ``kind`` that failed on the records ``broken`` (id, name)."""
    cannot = f"the server cannot list {kind.plural}"
    ids = [record_id for record_id, _ in broken]
    if not broken:
        sentence = (
            f"{cannot}: one of them refers to {_DELETED}, and the job list does not say which; "
            f"remove it with {kind.remove_one.format('its id')}"
        )
    elif len(broken) == 1:
        sentence = (
            f"{cannot}: {kind.noun} {_named(broken[0])} refers to {_DELETED}; remove it with "
            f"{kind.remove_one.format(ids[0])}"
        )
    else:
        named = ", ".join(_named(record) for record in broken)
        sentence = (
            f"{cannot}: {kind.plural} {named} refer to datasets that were deleted; remove them "
            f"with {kind.remove_several.format(ids)}"
        )
    return OrphanedRecordError(sentence, kind=kind.noun, ids=ids, cause=error)


def unreadable(
    stored: Mapping[int, Job], read: Callable[[int], Operation[object]]
) -> Operation[list[tuple[int, str | None]]]:
    """Of the records ``stored`` (id -> the job that stored it), those (id, the job's name)
    that ``read`` (a get operation) cannot read because their dataset was deleted, by id; one
    deleted since is left out."""
    broken = []
    for record_id, job in sorted(stored.items()):
        try:
            yield from read(record_id)
        except OrphanedRecordError:
            broken.append((record_id, job.name))
        except NotFoundError:
            continue  # deleted since
    return broken


def _named(record: tuple[int, str | None]) -> str:
    record_id, name = record
    return f"{record_id} ({name!r})" if name else str(record_id)
