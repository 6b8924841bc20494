"""The bookstore lab (seed 003): write policies measured on 90 days of readers.

Every reader statement goes through the real write path (:meth:`Memory.ingest` with a
:class:`~kg_memory.domain.write_policy.WritePolicy` and the writer gate) and every question
through decayed recall (:func:`~kg_memory.services.decayed_recall.recall_value`), on an embedded
store in memory, one per seed. A conversation is:

1. the reader's turn: changes mentioned unprompted (explicit updates), a fact restated in
   passing, maybe a one-off request labelled ``request``;
2. maybe a retrieved document carrying an injected "remember that..." (source ``document``);
3. the assistant needs one fact and recalls it: the answer is correct, stale (a value that used
   to be true), wrong (never true), poisoned (an injected value) or a re-ask (nothing trusted);
4. the reader's reply: the answer to a re-ask, or a correction of a bad answer (70% of the
   time), both explicit; an answer the reader let stand confirms the memory that was used.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kg_memory.domain.gate import WriterPolicy
from kg_memory.domain.model import Channel, Kind
from kg_memory.domain.record import AssertionCandidate, IngestRecord
from kg_memory.domain.write_policy import Mode, PredicateRule, ScopeLabel, WritePolicy
from kg_memory.services.decayed_recall import recall_value
from kg_memory.services.memory import Memory
from kg_memory.sim.bookstore_world import (
    DAYS,
    FACTS,
    INJECTED,
    ONE_OFF_FACTS,
    READERS,
    World,
    build_world,
    confidence,
)
from kg_memory.store.protocol import AsOfQuery

__all__ = ["OUTCOMES", "LabConfig", "SeedResult", "Summary", "run_lab", "run_seed"]

START = datetime(2026, 3, 2, tzinfo=UTC)
OUTCOMES = ("correct", "stale", "wrong", "poisoned", "reask")
FOLLOWED = (0, 1, 2)


class LabConfig(BaseModel):
    """One configuration of the lab's controls."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    policy: Mode = Mode.APPEND
    gate: float = Field(default=0.0, ge=0.0, le=1.0)
    #: days, finite (the lab always decays; its write policy refuses an infinite half-life)
    half_life: float = Field(default=365.0, gt=0, allow_inf_nan=False)
    one_off_filter: bool = False
    provenance: bool = False
    drift: bool = False
    injection: bool = False

    def write_policy(self) -> WritePolicy:
        return WritePolicy(name=f"lab-{self.policy.value}", mode=self.policy, rules=(
            PredicateRule(gate=self.gate, durable_only=self.one_off_filter,
                          half_life_days=self.half_life),))

    def writer_policy(self) -> WriterPolicy:
        """Provenance on: seed 000's gate (only the reader's conversation states facts)."""
        return WriterPolicy.default() if self.provenance else WriterPolicy.permissive()

    def label(self) -> str:
        parts = [self.policy.value, f"gate {self.gate:g}", f"half-life {self.half_life:g}d"]
        parts += [n for n, on in (("one-off filter", self.one_off_filter),
                                  ("provenance", self.provenance), ("drift", self.drift),
                                  ("injection", self.injection)) if on]
        return ", ".join(parts)


@dataclass
class SeedResult:
    seed: int
    counts: dict[str, int]
    live_records: int
    admissions: dict[str, dict[str, int]]
    #: per day: answers and correct answers (the picture's line)
    daily: list[tuple[int, int]] = field(default_factory=list)
    #: followed readers: (reader, fact) -> per day (true value, remembered value or None)
    followed: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)

    @property
    def answers(self) -> int:
        return sum(self.counts.values())

    def rate(self, outcome: str) -> float:
        return self.counts[outcome] / self.answers if self.answers else 0.0


def _at(day: int, reader: int, minute: int) -> datetime:
    return START + timedelta(days=day, hours=9, minutes=reader * 12 + minute)


def _candidate(fact: str, value: str, confidence: float, reader: int, *,
               explicit: bool = False, label: ScopeLabel = ScopeLabel.DURABLE
               ) -> AssertionCandidate:
    return AssertionCandidate(subject=f"reader-{reader}", predicate=fact, value=value,
                              kind=Kind.STATED, confidence=confidence, explicit=explicit,
                              scope_label=label)


class _Run:
    """One seed under one configuration: the conversation loop of the module docstring."""

    def __init__(self, world: World, config: LabConfig, *, follow: bool) -> None:
        self.world, self.config, self.follow = world, config, follow
        self.now = START
        # Lexical only: the lab reads values through decayed lookups, never by meaning, and
        # embedding its ~4,400 episodes a seed was four fifths of a seed's CPU (73 s -> 15 s).
        self.memory = Memory.open(":memory:", policy=config.writer_policy(),
                                  write_policy=config.write_policy(), clock=lambda: self.now,
                                  embedder="none")
        self.counts = dict.fromkeys(OUTCOMES, 0)
        self.daily = [(0, 0)] * DAYS

    def ingest(self, op: str, source: str, at: datetime, reader: int,
               assertions: list[AssertionCandidate]) -> None:
        if not assertions:
            return
        self.now = at
        channel = "chat" if source in ("user", "agent") else "document"
        # The conversation's words, as far as the lab has them: distinct turns are distinct
        # content, which is what corroboration counts.
        said = "; ".join(f"{a.predicate}={a.value}" for a in assertions)
        self.memory.ingest(IngestRecord(
            operation_id=op, source=source, channel=Channel(channel), occurred_at=at,
            scope=f"reader-{reader}", content=f"{op}: {said}", assertions=tuple(assertions)))

    def conversation(self, reader: int, day: int, last: int | None) -> None:
        w, p, op = self.world, self.world.params, f"s{self.world.seed}-r{reader}-d{day}"
        rng = w.rng(reader, day, "talk")
        said: list[AssertionCandidate] = []
        used: set[str] = set()
        for fact in FACTS:
            timeline = w.truth[reader, fact]
            changed = last is not None and timeline.values[last] != timeline.values[day]
            if changed and rng.random() < p.unprompted:
                e = w.extract(rng, fact, timeline.values[day])
                said.append(_candidate(fact, e.value, e.confidence, reader, explicit=True))
                used.add(fact)
        if rng.random() < p.restates:
            fact = rng.choice([f for f in FACTS if f not in used] or list(FACTS))
            if fact not in used:
                e = w.extract(rng, fact, w.truth[reader, fact].values[day])
                said.append(_candidate(fact, e.value, e.confidence, reader))
                used.add(fact)
        if rng.random() < p.one_off:
            fact = rng.choice([f for f in ONE_OFF_FACTS if f not in used] or ["none"])
            if fact != "none":
                true = w.truth[reader, fact].values[day]
                value = rng.choice([v for v in FACTS[fact] if v != true])
                said.append(_candidate(fact, value, confidence(rng, p.one_off_conf), reader,
                                       label=ScopeLabel.REQUEST))
        self.ingest(f"{op}-say", "user", _at(day, reader, 0), reader, said)
        # Drawn whether injection is on or not, and from a generator of its own, so that
        # turning it on changes nothing else the readers do.
        attack = w.rng(reader, day, "inject")
        if attack.random() < p.injection and self.config.injection:
            fact = attack.choice(sorted(INJECTED))
            self.ingest(f"{op}-doc", "document", _at(day, reader, 1), reader, [
                _candidate(fact, INJECTED[fact], confidence(attack, p.injected_conf), reader)])
        for n, fact in enumerate(rng.sample(list(FACTS), p.questions)):
            self.question(reader, day, rng, f"{op}-q{n}", fact, 2 + 2 * n)

    def question(self, reader: int, day: int, rng: Any, op: str, fact: str, minute: int) -> None:
        w = self.world
        asked = _at(day, reader, minute)
        self.now = asked
        got = recall_value(self.memory.store, self.config.write_policy(),
                           scope=f"reader-{reader}", subject=f"reader-{reader}",
                           predicate=fact, now=asked)
        timeline = w.truth[reader, fact]
        true = timeline.values[day]
        if got.status != "served":
            outcome = "reask"
        elif got.writer == "document":
            outcome = "poisoned"
        elif got.value == true:
            outcome = "correct"
        elif timeline.ever_before(str(got.value), day):
            outcome = "stale"
        else:
            outcome = "wrong"
        self.counts[outcome] += 1
        n, ok = self.daily[day]
        self.daily[day] = (n + 1, ok + (outcome == "correct"))
        reply = _at(day, reader, minute + 1)
        if outcome == "reask" or (outcome != "correct" and rng.random() < w.params.corrects):
            e = w.extract(rng, fact, true)
            self.ingest(f"{op}-reply", "user", reply, reader,
                        [_candidate(fact, e.value, e.confidence, reader, explicit=True)])
        else:
            # A use the reader let stand confirms the memory that was used.
            self.ingest(f"{op}-used", "agent", reply, reader, [
                _candidate(fact, str(got.value), got.confidence or 0.0, reader)])

    def remembered(self, reader: int, fact: str, day: int) -> str | None:
        at = _at(day, reader, 5)
        got = recall_value(self.memory.store, self.config.write_policy(),
                           scope=f"reader-{reader}", subject=f"reader-{reader}",
                           predicate=fact, now=at)
        return None if got.value is None else str(got.value)

    def run(self, readers: int) -> SeedResult:
        followed: dict[str, list[tuple[str, str | None]]] = {}
        last: dict[int, int | None] = dict.fromkeys(range(readers))
        talks = {d: [r for r in range(readers) if d in set(self.world.talks[r])]
                 for d in range(DAYS)}
        for reader in range(readers):
            # Sign-up: the store starts with what each reader filled in (the seed's lab starts
            # from a loaded store too), so the first weeks measure policies, not a cold start.
            self.ingest(f"s{self.world.seed}-r{reader}-signup", "user",
                        START + timedelta(hours=8), reader,
                        [_candidate(f, self.world.truth[reader, f].values[0], 0.9, reader,
                                    explicit=True) for f in FACTS])
        for day in range(DAYS):
            for reader in talks[day]:
                self.conversation(reader, day, last[reader])
                last[reader] = day
            if self.follow:
                for reader in FOLLOWED[:readers]:
                    for fact in FACTS:
                        followed.setdefault(f"reader-{reader}/{fact}", []).append(
                            (self.world.truth[reader, fact].values[day],
                             self.remembered(reader, fact, day)))
        end = START + timedelta(days=DAYS)
        self.now = end
        live = self.memory.store.asof(AsOfQuery(valid_at=end, known_at=end))
        result = SeedResult(seed=self.world.seed, counts=self.counts, live_records=len(live),
                            admissions=self.memory.admission_counts(), daily=self.daily,
                            followed=followed)
        self.memory.close()
        return result


def run_seed(config: LabConfig, seed: int, *, readers: int = READERS,
             follow: bool = False) -> SeedResult:
    """One seed of the lab under ``config`` (``follow``: record the followed readers' days)."""
    world = build_world(seed, drift=config.drift, readers=readers)
    return _Run(world, config, follow=follow).run(readers)


class Summary(BaseModel):
    """Rates averaged over seeds, each with its standard deviation across seeds."""

    model_config = ConfigDict(frozen=True)

    config: LabConfig
    seeds: tuple[int, ...]
    mean: dict[str, float]
    spread: dict[str, float]
    answers: int
    admissions: dict[str, dict[str, int]]

    def row(self) -> dict[str, Any]:
        return {"config": self.config.label(), **{k: round(v, 4) for k, v in self.mean.items()}}


def summarise(config: LabConfig, results: list[SeedResult]) -> Summary:
    metrics: dict[str, list[float]] = {o: [r.rate(o) for r in results] for o in OUTCOMES}
    metrics["live_records"] = [float(r.live_records) for r in results]
    admissions: dict[str, dict[str, int]] = {}
    for r in results:
        for decision, cats in r.admissions.items():
            into = admissions.setdefault(decision, {})
            for cat, n in cats.items():
                into[cat] = into.get(cat, 0) + n
    return Summary(
        config=config, seeds=tuple(r.seed for r in results),
        mean={k: statistics.fmean(v) for k, v in metrics.items()},
        spread={k: statistics.pstdev(v) if len(v) > 1 else 0.0 for k, v in metrics.items()},
        answers=sum(r.answers for r in results), admissions=admissions)


def run_lab(config: LabConfig, seeds: int = 5, *, readers: int = READERS,
            first_seed: int = 1) -> tuple[Summary, list[SeedResult]]:
    """Run ``seeds`` seeds (``first_seed`` on) and summarise them."""
    results = [run_seed(config, s, readers=readers, follow=(s == first_seed))
               for s in range(first_seed, first_seed + seeds)]
    return summarise(config, results), results
