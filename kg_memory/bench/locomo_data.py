"""LoCoMo, read from the path the user gives: conversations of dated sessions, and questions
that name their evidence turns.

The data is not part of kg-memory (it is for evaluation only, and its licence is its own): it
is read at benchmark time from ``locomo10.zip`` (or the JSON in it, or a directory of it).
Two shapes are accepted, both as the snap-research/locomo repository publishes them: a list
of samples (``locomo10.json``: ``sample_id``, ``conversation``, ``qa``), or one conversation
per file (``locomo10_v2/26.json``: the conversation's keys and ``qa`` at the top, the file's
name its sample id). A conversation holds ``session_N`` lists of turns (``speaker``,
``dia_id``, ``text``) and ``session_N_date_time`` ("1:56 pm on 8 May, 2023"); a question
holds ``question``, ``category`` and ``evidence``, the ``dia_id`` s of its evidence turns
(sometimes several in one string: every ``D<session>:<turn>`` in it counts).

>>> evidence_ids(["D1:3", "D8:6; D9:17", "D30:05", "x"])
('D1:3', 'D8:6', 'D9:17', 'D30:5')
>>> session_time("1:56 pm on 8 May, 2023").isoformat()
'2023-05-08T13:56:00+00:00'
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kg_memory.domain.errors import InvalidArgument

__all__ = [
    "HELD_OUT",
    "TUNE",
    "Conversation",
    "Question",
    "Turn",
    "choose",
    "evidence_ids",
    "load",
    "parse_selection",
    "session_of",
    "session_time",
    "split_of",
]

_EVIDENCE = re.compile(r"D(\d+):(\d+)")
_SESSION = re.compile(r"session_(\d+)")
#: When a session has no date: the turns keep their order, a day apart per session.
_UNDATED = datetime(2000, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    at: datetime  # the session's date, plus one second per turn so order is kept


@dataclass(frozen=True)
class Question:
    question: str
    category: int
    evidence: tuple[str, ...]  # dia_ids of turns that exist in the conversation


@dataclass(frozen=True)
class Conversation:
    number: int  # 1-based, in sample id order (so 1-5 are the same five in either shape)
    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def evidence_ids(evidence: Iterable[object]) -> tuple[str, ...]:
    """Every ``D<session>:<turn>`` named in ``evidence``, normalised (no leading zeros)."""
    found = (f"D{int(s)}:{int(t)}" for item in evidence for s, t in _EVIDENCE.findall(str(item)))
    return tuple(dict.fromkeys(found))


#: LoCoMo's conversations by the number in their sample id (``conv-26`` or ``26``).
TUNE = frozenset({26, 30, 41, 42, 43})
HELD_OUT = frozenset({44, 47, 48, 49, 50})


def split_of(sample_id: str) -> str:
    """``tune``, ``held-out`` or ``other``, by the number in a LoCoMo sample id.

    >>> split_of("conv-26"), split_of("44"), split_of("conv-7"), split_of("x")
    ('tune', 'held-out', 'other', 'other')
    """
    number = _digits(sample_id)
    return "tune" if number in TUNE else "held-out" if number in HELD_OUT else "other"


def choose(conversations: Sequence[Conversation], text: str) -> list[Conversation]:
    """The conversations ``text`` names: ``all``, ``tune``, ``held-out``, or sample ids
    (``conv-26`` or ``26``), comma-separated; an unknown name is :class:`InvalidArgument`.

    >>> found = [Conversation(n, f"conv-{s}", (), ()) for n, s in enumerate((26, 44, 7), 1)]
    >>> [c.sample_id for c in choose(found, "held-out, 7")]
    ['conv-44', 'conv-7']
    """
    wanted: set[str] = set()
    for part in filter(None, (p.strip().lower() for p in text.split(","))):
        if part == "all":
            wanted.update(c.sample_id for c in conversations)
        elif part in ("tune", "held-out"):
            wanted.update(c.sample_id for c in conversations if split_of(c.sample_id) == part)
        else:
            named = [c.sample_id for c in conversations
                     if c.sample_id.lower() == part or _digits(c.sample_id) == _digits(part)]
            if not named:
                ids = ", ".join(c.sample_id for c in conversations)
                raise InvalidArgument(f"no conversation {part!r}: the data holds {ids} "
                                      "(or say all, tune, held-out)", field="conversations")
            wanted.update(named)
    chosen = [c for c in conversations if c.sample_id in wanted]
    if not chosen:
        raise InvalidArgument("no conversation selected", field="conversations")
    return chosen


def session_of(dia_id: str) -> int:
    """The session a turn was said in (``D3:7`` -> 3); 0 for an id of another form.

    >>> session_of("D12:4"), session_of("x")
    (12, 0)
    """
    found = _EVIDENCE.fullmatch(dia_id)
    return int(found.group(1)) if found else 0


def session_time(text: str | None) -> datetime | None:
    """A session's ``date_time`` as a UTC instant (the data has no zone), or ``None``."""
    if not text:
        return None
    for form in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return datetime.strptime(text.strip(), form).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def _conversation(sample_id: str, body: dict[str, Any], qa: list[dict[str, Any]]
                  ) -> tuple[str, tuple[Turn, ...], tuple[Question, ...]]:
    sessions = sorted(int(m.group(1)) for k in body if (m := _SESSION.fullmatch(k)))
    turns: list[Turn] = []
    for n in sessions:
        start = session_time(body.get(f"session_{n}_date_time")) or \
            _UNDATED + timedelta(days=n)
        for i, turn in enumerate(body[f"session_{n}"]):
            [dia_id] = evidence_ids([turn["dia_id"]]) or (str(turn["dia_id"]),)
            turns.append(Turn(dia_id=dia_id, speaker=str(turn.get("speaker", "")),
                              text=str(turn.get("text", "")),
                              at=start + timedelta(seconds=i)))
    known = {t.dia_id for t in turns}
    questions = tuple(
        Question(question=str(q["question"]), category=int(q.get("category", 0)),
                 evidence=tuple(e for e in evidence_ids(q.get("evidence", ())) if e in known))
        for q in qa if "question" in q)
    return sample_id, tuple(turns), questions


def _samples(name: str, data: Any) -> Iterator[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    if isinstance(data, list):  # locomo10.json
        for sample in data:
            yield str(sample["sample_id"]), sample["conversation"], sample.get("qa", [])
    elif isinstance(data, dict) and "qa" in data:  # locomo10_v2/<sample id>.json
        body = data.get("conversation", data)
        yield str(data.get("sample_id", Path(name).stem)), body, data["qa"]


def _documents(path: Path) -> Iterator[tuple[str, Any]]:
    if path.is_dir():
        for file in sorted(path.rglob("*.json")):
            yield file.name, json.loads(file.read_text(encoding="utf-8"))
    elif zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            for info in sorted(archive.infolist(), key=lambda i: i.filename):
                if info.filename.endswith(".json") and not info.is_dir():
                    with archive.open(info) as raw:
                        yield info.filename, json.load(io.TextIOWrapper(raw, encoding="utf-8"))
    else:
        yield path.name, json.loads(path.read_text(encoding="utf-8"))


def _digits(sample_id: str) -> int | None:
    digits = re.sub(r"\D", "", sample_id)
    return int(digits) if digits else None


def _order(sample_id: str) -> tuple[int, str]:
    return (_digits(sample_id) or 0, sample_id)


def load(path: Path | str) -> list[Conversation]:
    """Every conversation at ``path`` (a zip, a JSON file or a directory), numbered from 1 in
    sample id order. Raises :class:`InvalidArgument` when there is none."""
    target = Path(path)
    if not target.exists():
        raise InvalidArgument(f"no LoCoMo data at {target}")
    found: dict[str, tuple[str, tuple[Turn, ...], tuple[Question, ...]]] = {}
    for name, data in _documents(target):
        for sample_id, body, qa in _samples(name, data):
            found.setdefault(sample_id, _conversation(sample_id, body, qa))
    if not found:
        raise InvalidArgument(f"{target} holds no LoCoMo conversation")
    ordered = sorted(found, key=_order)
    return [Conversation(number=n, sample_id=s, turns=found[s][1], questions=found[s][2])
            for n, s in enumerate(ordered, start=1)]


def parse_selection(text: str, count: int) -> list[int]:
    """Conversation numbers from ``"1-5"``, ``"6-10"``, ``"1,3,7-8"`` (1-based, ``count`` many).

    >>> parse_selection("1-3,7", 10)
    [1, 2, 3, 7]
    """
    chosen: set[int] = set()
    for part in filter(None, (p.strip() for p in text.split(","))):
        low, _, high = part.partition("-")
        try:
            a, b = int(low), int(high or low)
        except ValueError:
            raise InvalidArgument(f"not a conversation range: {part!r}") from None
        if not 1 <= a <= b <= count:
            raise InvalidArgument(f"conversations are 1 to {count}, not {part!r}")
        chosen.update(range(a, b + 1))
    if not chosen:
        raise InvalidArgument("no conversation selected")
    return sorted(chosen)
