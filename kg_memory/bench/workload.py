"""The benchmark's synthetic workload: agent memory for many users, generated from a seed.

Each user is one scope (``user-00042``) with one subject (``u00042``) and follows the same
twelve-episode *script*, with its own values, times and correction date drawn from a per-user
random generator. The script covers every write path the store has:

====  ===========================  =========================================================
step  episode                      what it does to the store (new version rows)
====  ===========================  =========================================================
0     user introduces themselves   five stated facts: diet, city, employer, timezone, seat (+5)
1     agent books a table          a world fact depending on a booking entity the
                                   restaurant owns (+1)
2     a summariser summarises      a derived ``profile`` depending on three facts (+1)
3     user moved city              supersedes city (+2) and retires the profile (+1)
4     restaurant cancels           an owner's event retires the booking fact (+1)
5     user corrects the move date  retroactive: city valid from an earlier instant (+2),
                                   which retires a further slice of the profile (+1)
6     agent books again            a second booking, left standing (+1)
7     a summariser summarises      a new profile on the current facts (+1)
8     user changed jobs            supersedes employer (+2) and retires the profile (+1)
9     user restates their diet     same value: one more supporting episode, no new row (+0)
10    user withdraws timezone      a retraction of the rest of valid time (+1)
11    a summariser summarises      a third profile (+1)
====  ===========================  =========================================================

That is :data:`VERSIONS_PER_USER` = 21 version rows from 12 episodes per user, so the version
count of a run is known before it starts and the smoke test can check the store against it.

Episodes are emitted *step-major* (step 0 for every user, then step 1, ...), and within a step
in user order, each step occupying its own week. That makes ``occurred_at`` strictly increasing
across the whole stream without holding it in memory, so the store's clock can follow the
scenario (system time = arrival time) and ``known_at`` queries mean something.

The profiles come from an external summarising service (``summarizer`` over the ``api``
channel): ingest never accepts kg-memory's own ``consolidator`` identity, so the workload runs
under :data:`POLICY`, the default writer policy plus one rule letting that service derive.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.gate import GateRule, WriterPolicy
from kg_memory.domain.model import Kind
from kg_memory.domain.record import IngestRecord

__all__ = [
    "EPISODES_PER_USER",
    "POLICY",
    "PREDICATES",
    "VERSIONS_PER_USER",
    "LookupProbe",
    "SnapshotProbe",
    "Workload",
]

SUMMARIZER = "summarizer"

#: The writer policy the workload is ingested under (see the module docstring).
POLICY = WriterPolicy.default().model_copy(update={
    "name": "bench",
    "rules": (*WriterPolicy.default().rules, GateRule(kind=Kind.DERIVED, writers=(SUMMARIZER,))),
})

#: New version rows one user's script writes (see the module docstring's table).
STEP_VERSIONS: tuple[int, ...] = (5, 1, 1, 3, 1, 3, 1, 1, 3, 0, 1, 1)
VERSIONS_PER_USER = sum(STEP_VERSIONS)
EPISODES_PER_USER = len(STEP_VERSIONS)

#: Every predicate a user's subject ends up with; lookups pick among these.
PREDICATES: tuple[str, ...] = (
    "diet",
    "city",
    "employer",
    "timezone",
    "seat",
    "booking",
    "profile",
)

_EPOCH = datetime(2025, 1, 6, tzinfo=UTC)
_STEP = timedelta(days=7)
_DIETS = ("vegetarian", "vegan", "pescatarian", "omnivore", "gluten-free", "halal", "kosher")
_CITIES = ("Lisbon", "Porto", "Berlin", "Seoul", "Osaka", "Lyon", "Austin", "Nairobi", "Lima")
_EMPLOYERS = ("Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Cyberdyne")
_ZONES = ("Europe/Lisbon", "Europe/Berlin", "Asia/Seoul", "America/Chicago", "Africa/Nairobi")
_SEATS = ("window", "booth", "terrace", "bar", "quiet corner")
_RESTAURANTS = ("Luz", "Tasca", "Hanok", "Mercado", "Bistro 9", "Kanpai", "Olive")


class LookupProbe(BaseModel):
    """One as-of point lookup: ``subject.predicate`` at ``valid_at`` as known at ``known_at``."""

    model_config = ConfigDict(frozen=True)

    subject: str
    predicate: str
    valid_at: datetime
    known_at: datetime


class SnapshotProbe(BaseModel):
    """Everything in one ``scope`` at ``valid_at`` as known at ``known_at``."""

    model_config = ConfigDict(frozen=True)

    scope: str
    valid_at: datetime
    known_at: datetime


class _Script:
    """One user's draws: values, and the instant of every step. Cheap to recompute."""

    def __init__(self, seed: int, user: int, users: int) -> None:
        rng = random.Random(seed * 1_000_003 + user)
        self.user = user
        self.subject = f"u{user:06d}"
        self.scope = f"user-{user:06d}"
        self.diet = rng.choice(_DIETS)
        city, new_city = rng.sample(_CITIES, 2)
        employer, new_employer = rng.sample(_EMPLOYERS, 2)
        self.city, self.new_city = city, new_city
        self.employer, self.new_employer = employer, new_employer
        self.zone = rng.choice(_ZONES)
        self.seat = rng.choice(_SEATS)
        self.restaurants = (rng.choice(_RESTAURANTS), rng.choice(_RESTAURANTS))
        # Users spread evenly over each step's week, in user order: the stream stays sorted.
        offset = _STEP * (user / users)
        self.at = tuple(_EPOCH + _STEP * step + offset for step in range(EPISODES_PER_USER))
        # The move really happened somewhere strictly between the first profile and the report.
        self.moved_at = self.at[2] + (self.at[3] - self.at[2]) * rng.uniform(0.1, 0.9)

    def booking(self, n: int) -> str:
        return f"bk-{self.user:06d}-{n}"

    def profile(self, city: str, employer: str) -> str:
        return f"{self.diet}, lives in {city}, works at {employer}"

    def record(self, step: int) -> dict[str, Any]:
        """The raw JSON-shaped episode of ``step`` (validated by :meth:`Workload.records`)."""
        s, me = self, self.subject
        base: dict[str, Any] = {
            "operation_id": f"{s.scope}/{step}",
            "source": "user",
            "channel": "chat",
            "occurred_at": s.at[step],
            "scope": s.scope,
        }
        facts = [f"fact:{me}/diet", f"fact:{me}/city", f"fact:{me}/employer"]
        if step == 0:
            values = {
                "diet": s.diet,
                "city": s.city,
                "employer": s.employer,
                "timezone": s.zone,
                "seat": s.seat,
            }
            base["content"] = f"Hi! I'm {s.diet}, I live in {s.city} and work at {s.employer}."
            base["assertions"] = [
                {"subject": me, "predicate": p, "value": v, "kind": "stated"}
                for p, v in values.items()
            ]
        elif step in (1, 6):
            n = 1 if step == 1 else 2
            place = s.restaurants[n - 1]
            base.update(source="agent", channel="tool", content=f"Booked {place} for 2, 19:00")
            base["entities"] = [
                {
                    "entity_id": s.booking(n),
                    "type": "booking",
                    "name": f"{place} for {me}",
                    "owners": ["restaurant"],
                }
            ]
            base["assertions"] = [
                {
                    "subject": me,
                    "predicate": "booking",
                    "value": f"{place} for 2 at 19:00",
                    "kind": "world",
                    "depends_on": [s.booking(n)],
                }
            ]
        elif step in (2, 7, 11):
            city = s.city if step == 2 else s.new_city
            employer = s.employer if step in (2, 7) else s.new_employer
            base.update(source=SUMMARIZER, channel="api", content="nightly summary")
            base["assertions"] = [
                {
                    "subject": me,
                    "predicate": "profile",
                    "value": s.profile(city, employer),
                    "kind": "derived",
                    "depends_on": facts,
                }
            ]
        elif step == 3:
            base["content"] = f"I moved to {s.new_city}."
            base["assertions"] = [
                {"subject": me, "predicate": "city", "value": s.new_city, "kind": "stated"}
            ]
        elif step == 4:
            base.update(
                source="restaurant",
                channel="webhook",
                content=f"{s.booking(1)} cancelled by the venue",
            )
            base["events"] = [{"target": s.booking(1), "name": "cancelled"}]
        elif step == 5:
            base["content"] = f"Actually I moved to {s.new_city} earlier, on {s.moved_at:%d %b}."
            base["assertions"] = [
                {
                    "subject": me,
                    "predicate": "city",
                    "value": s.new_city,
                    "kind": "stated",
                    "valid_from": s.moved_at,
                }
            ]
        elif step == 8:
            base["content"] = f"I started at {s.new_employer}."
            base["assertions"] = [
                {"subject": me, "predicate": "employer", "value": s.new_employer, "kind": "stated"}
            ]
        elif step == 9:
            base["content"] = f"Reminder: I'm {s.diet}."
            base["assertions"] = [
                {"subject": me, "predicate": "diet", "value": s.diet, "kind": "stated"}
            ]
        else:  # step 10
            base["content"] = "Forget my timezone, I travel too much."
            base["retractions"] = [{"subject": me, "predicate": "timezone"}]
        return base


class Workload(BaseModel):
    """A deterministic workload of about ``target_versions`` version rows.

    >>> w = Workload.for_versions(500, seed=7)
    >>> (w.users, w.versions, w.episodes)
    (24, 504, 288)
    >>> first = next(w.records())
    >>> (first.scope, first.assertions[0].predicate)
    ('user-000000', 'diet')
    """

    model_config = ConfigDict(frozen=True)

    users: int
    seed: int = 0

    @classmethod
    def for_versions(cls, target_versions: int, *, seed: int = 0) -> Workload:
        """The workload with as many users as it takes to write ~``target_versions`` rows."""
        return cls(users=max(1, round(target_versions / VERSIONS_PER_USER)), seed=seed)

    @property
    def versions(self) -> int:
        """Version rows the store must hold after ingesting every record."""
        return self.users * VERSIONS_PER_USER

    @property
    def episodes(self) -> int:
        return self.users * EPISODES_PER_USER

    @property
    def start(self) -> datetime:
        return _EPOCH

    @property
    def end(self) -> datetime:
        """An instant after the last episode: the end of the timeline queries sample from."""
        return _EPOCH + _STEP * EPISODES_PER_USER

    def records(self) -> Iterator[IngestRecord]:
        """Every episode, lazily, in strictly increasing ``occurred_at`` order."""
        for step in range(EPISODES_PER_USER):
            for user in range(self.users):
                script = _Script(self.seed, user, self.users)
                yield IngestRecord.model_validate(script.record(step))

    def _instant(self, rng: random.Random, start: datetime) -> datetime:
        span = (self.end - start) / timedelta(microseconds=1)
        return start + timedelta(microseconds=math.floor(rng.random() * span))

    def lookups(self, count: int, *, seed: int = 1) -> list[LookupProbe]:
        """``count`` point lookups at random (valid, known) pairs inside each user's lifetime."""
        rng = random.Random(self.seed * 7919 + seed)
        probes = []
        for _ in range(count):
            script = _Script(self.seed, rng.randrange(self.users), self.users)
            probes.append(
                LookupProbe(
                    subject=script.subject,
                    predicate=rng.choice(PREDICATES),
                    valid_at=self._instant(rng, script.at[0]),
                    known_at=self._instant(rng, script.at[0]),
                )
            )
        return probes

    def snapshots(self, count: int, *, seed: int = 2) -> list[SnapshotProbe]:
        """``count`` whole-scope snapshots at random (valid, known) pairs."""
        rng = random.Random(self.seed * 7919 + seed)
        probes = []
        for _ in range(count):
            script = _Script(self.seed, rng.randrange(self.users), self.users)
            probes.append(
                SnapshotProbe(
                    scope=script.scope,
                    valid_at=self._instant(rng, script.at[0]),
                    known_at=self._instant(rng, script.at[0]),
                )
            )
        return probes
