"""The rule book: tiered rules (seed 004) kept as store documents, on either backend.

Each change is a pure function of :mod:`kg_memory.domain.layers` applied to the stored rule and
written back in one transaction, with the transition (who, when, why) inside the rule. A
correction starts from :meth:`RuleBook.basis`, the raw episodes the rule links to.

**Environment signals are facts in the graph.** A signal (config version, tool schema hash,
permission set, data snapshot id, a declared domain switch) is the world fact
``env:NAME.value``, written through the normal write path by :data:`SIGNAL_SOURCE` over the API
channel, with its episode. A rule bound to signals gets one *binding* fact per signal,
``RULE_ID.signal.NAME`` = the value it was learned under, which ``DEPENDS_ON`` the signal fact:
the same dependency machinery that ends "reviews go to Seoyun" when the team lead changes. When
a signal moves, the write path retires every binding that depended on the old value, and each
rule whose binding no longer holds goes to review (at once through :meth:`RuleBook.signal`; a
signal moved by a plain ingest is caught by :meth:`RuleBook.due`). Lineage shows a rule's
signals and basis episodes; forgetting reaches rules (:mod:`kg_memory.services.rule_basis`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.errors import (
    InvalidArgument,
    NotFound,
    PolicyError,
    ScopeError,
    WriteRefused,
)
from kg_memory.domain.gate import WriterPolicy, admit
from kg_memory.domain.layers import (
    Observation,
    Outcome,
    PromotionPolicy,
    Rule,
    RuleType,
    Tier,
    approve,
    move_signal,
    observe,
    overturn,
    promote,
    review,
)
from kg_memory.domain.limits import check_text
from kg_memory.domain.model import Assertion, Channel, Episode, Kind
from kg_memory.domain.record import AssertionCandidate, IngestRecord
from kg_memory.domain.rule_review import review_due, send_to_review
from kg_memory.services.ingestion import IngestReport
from kg_memory.store.protocol import Store

__all__ = [
    "RULE", "SIGNAL_SOURCE", "Binding", "RuleBook", "RuleLink", "binding_predicate", "rule_links",
    "signal_subject",
]

RULE = "rule"
#: who reports environment signals: a registry over the API channel, which the default writer
#: gate admits for world facts (a chat message cannot move a signal)
SIGNAL_SOURCE = "registry"
_SIGNAL_PREDICATE = "value"
# No "/" or "@": the name is part of a fact reference (fact:env:NAME/value).
_NAME = re.compile(r"^[A-Za-z0-9_.:-]{1,100}$")


def signal_subject(name: str) -> str:
    return f"env:{name}"


def binding_predicate(name: str) -> str:
    return f"signal.{name}"


def _holding(versions: list[Assertion], now: datetime) -> Assertion | None:
    """The world fact believed to hold at ``now`` among ``versions`` (those the policy vouches
    for: see :meth:`RuleBook._vouched`)."""
    live = [v for v in versions if v.system.end is None and v.valid.contains(now)
            and v.kind is Kind.WORLD]
    return live[-1] if live else None


class Binding(BaseModel):
    """One signal a rule was learned under: the value, what the signal reads now, and whether
    the binding holds (``current``); a retired binding is history, not what the rule is bound
    to."""

    model_config = ConfigDict(frozen=True)

    signal: str
    value: str
    current: bool
    reads: str | None


class RuleBook:
    """Rules of one store; ``clock`` supplies the time every transition is recorded at, and
    ``ingest`` is the write path signals and bindings go through (the :class:`Memory`'s)."""

    def __init__(self, store: Store, clock: Callable[[], datetime],
                 policy: PromotionPolicy | None = None,
                 ingest: Callable[[IngestRecord], IngestReport] | None = None,
                 writers: WriterPolicy | None = None) -> None:
        self._store, self._clock, self._ingest = store, clock, ingest
        self.policy = policy or PromotionPolicy()
        self._writers = writers or WriterPolicy.default()

    def all(self, scope: str | None = None, tier: Tier | None = None) -> list[Rule]:
        check_text(scope=scope)
        rules = [Rule.model_validate_json(b) for b in self._store.documents(RULE, scope)]
        return [r for r in rules if tier is None or r.tier is tier]

    def show(self, rule_id: str, scope: str | None = None) -> Rule:
        """One rule; with ``scope``, only if it is that tenant's (else not found: another
        tenant's rule is not even confirmed to exist)."""
        check_text(rule_id=rule_id, scope=scope)
        found = self._store.documents(RULE, scope, key=rule_id)
        if not found:
            raise NotFound(f"no rule {rule_id!r}")
        return Rule.model_validate_json(found[0])

    def _put(self, rule: Rule) -> Rule:
        with self._store.transaction(rule.scope) as tx:
            tx.put_document(RULE, rule.rule_id, rule.scope, rule.model_dump_json())
        return rule

    # -- signals -------------------------------------------------------------------------

    def _vouched(self, subject: str, predicate: str, scope: str) -> list[Assertion]:
        """The revisions of ``subject.predicate`` whose writer the writer policy admits for
        that slot, over the channel their episode arrived by: a signal or a binding someone
        else wrote (a tool, the agent, the registry over a webhook; stored before the gate
        reserved these slots, or beside the registry's value in another authority tier) is
        never what a rule is judged by."""
        versions = [v for v in self._store.history(subject, predicate, scope)
                    if v.system.end is None]
        channels = {e.episode_id: e.channel for e in self._store.episodes(
            sorted({v.recorded_by for v in versions}))}
        return [v for v in versions if admit(
            self._writers, source=v.writer, kind=v.kind, subject=subject, predicate=predicate,
            channel=channels.get(v.recorded_by)).admitted]

    def current_signal(self, name: str, scope: str) -> str | None:
        """The value signal ``name`` reads now in ``scope`` (``None``: never reported)."""
        fact = _holding(self._vouched(signal_subject(name), _SIGNAL_PREDICATE, scope),
                        self._clock())
        return None if fact is None else str(fact.value)

    def _write(self, record: IngestRecord) -> IngestReport:
        if self._ingest is None:
            raise PolicyError("this rule book has no write path for signals (use Memory.rules)")
        report = self._ingest(record)
        refused = [e for e in report.effects if e.action == "refused"]
        if report.status == "refused" or refused:
            why = refused[0].detail if refused else "the channel policy refused the episode"
            raise WriteRefused(f"{record.operation_id}: {why}")
        return report

    def _write_signal(self, name: str, value: str, scope: str, source: str) -> None:
        if not _NAME.match(name):
            raise PolicyError(f"signal name {name!r}: letters, digits and _ . : - only")
        if not value.strip():
            raise PolicyError(f"signal {name}: the value is empty")
        now = self._clock()
        self._write(IngestRecord(
            operation_id=f"signal/{name}/{now.isoformat()}/{value}", source=source,
            channel=Channel.API, occurred_at=now, scope=scope,
            content=f"environment signal {name} = {value}",
            assertions=(AssertionCandidate(subject=signal_subject(name),
                                           predicate=_SIGNAL_PREDICATE, value=value,
                                           kind=Kind.WORLD, explicit=True),)))

    def _bind(self, rule: Rule, source: str = SIGNAL_SOURCE) -> None:
        """Write the rule's binding facts, each DEPENDS_ON the signal it was learned under."""
        if not rule.signals:
            return
        for name, value in sorted(rule.signals.items()):
            current = self.current_signal(name, rule.scope)
            if current is None:
                self._write_signal(name, value, rule.scope, source)
            elif current != value:
                raise PolicyError(f"signal {name} reads {current!r} now, not {value!r}: a rule "
                                  "is bound to the value it is learned under")
        now = self._clock()
        digest = hashlib.sha256(repr(sorted(rule.signals.items())).encode()).hexdigest()[:12]
        self._write(IngestRecord(
            operation_id=f"rule-bind/{rule.rule_id}/{now.isoformat()}/{digest}", source=source,
            channel=Channel.API, occurred_at=now, scope=rule.scope,
            content=f"rule {rule.rule_id} learned under {len(rule.signals)} signal(s)",
            assertions=tuple(
                AssertionCandidate(subject=rule.rule_id, predicate=binding_predicate(name),
                                   value=value, kind=Kind.WORLD, explicit=True,
                                   depends_on=(f"fact:{signal_subject(name)}/"
                                               f"{_SIGNAL_PREDICATE}",))
                for name, value in sorted(rule.signals.items()))))

    def bindings(self, rule: Rule) -> list[Binding]:
        """Each signal ``rule`` was learned under, by name, and whether its binding still holds
        now: the binding fact is live with that value and the signal reads it. A binding is
        retired when the signal moved (the write path retired the fact), or when the signal
        no longer reads the value (it was forgotten)."""
        now = self._clock()
        found = []
        for name, value in sorted(rule.signals.items()):
            binding = _holding(self._vouched(rule.rule_id, binding_predicate(name),
                                             rule.scope), now)
            reads = self.current_signal(name, rule.scope)
            found.append(Binding(signal=name, value=value, reads=reads, current=(
                binding is not None and binding.value == value and reads == value)))
        return found

    def unbound(self, rule: Rule) -> str | None:
        """Why a bound signal no longer holds for ``rule`` (the first retired binding of
        :meth:`bindings`), or None."""
        for b in self.bindings(rule):
            if not b.current:
                return f"signal {b.signal}: {b.value} -> {b.reads or 'no value'}"
        return None

    def signal(self, name: str, value: str, scope: str | None = None, *,
               source: str = SIGNAL_SOURCE) -> list[Rule]:
        """Move an environment signal: write the fact (in ``scope``; without one, in every
        scope with a rule bound to ``name``) and send every rule whose binding it retired to
        review. Returns those rules."""
        check_text(signal=name, scope=scope)
        check_text(signal=value)
        scopes = [scope] if scope is not None else sorted(
            {r.scope for r in self.all() if name in r.signals})
        moved = []
        for where in scopes:
            # Only what this write unbinds: a rule already sent to review by an earlier move,
            # or a report of the value it already reads, is not reported again.
            bound = [r for r in self.all(where) if name in r.signals
                     and r.status in ("active", "review") and self.unbound(r) is None]
            self._write_signal(name, value, where, source)
            now = self._clock()
            for rule in bound:
                if self.unbound(rule) is not None:
                    after = move_signal(rule, name, value, now)
                    if after != rule:
                        moved.append(self._put(after))
        return moved

    # -- the rule's life -------------------------------------------------------------------

    def propose(self, scope: str, content: str, *, type: RuleType = RuleType.EXPERIENCE,
                conditions: tuple[str, ...] = (), signals: dict[str, str] | None = None,
                corrects: str | None = None, expires_at: datetime | None = None,
                review_every_days: float | None = None) -> Rule:
        """A new session entry (nothing starts higher: promotion is earned), bound to the
        signals it is learned under. Proposing the same rule again returns it unchanged,
        unless it has expired: an expiry is final, so the same text starts a new rule (a new
        id, the next generation of the same content and conditions), and the expired one stays
        as it ended."""
        if not scope:
            raise ScopeError("a rule belongs to a tenant: give a non-empty scope")
        check_text(scope=scope, content=content, corrects=corrects)
        for condition in conditions:
            check_text(condition=condition)
        for name, value in (signals or {}).items():
            check_text(signal=name)
            check_text(signal=value)
        if not content.strip():
            raise PolicyError("a rule needs content")
        generation = 0
        while True:
            # Generation 0 keeps the id every earlier proposal of this text was given.
            key = f"{scope}/{content}/{conditions}" + (f"/{generation}" if generation else "")
            rule_id = f"rl_{hashlib.sha256(key.encode()).hexdigest()[:16]}"
            existing = self._store.documents(RULE, scope, key=rule_id)
            if not existing:
                break
            found = Rule.model_validate_json(existing[0])
            if found.status != "expired":
                return found
            generation += 1
        rule = Rule(rule_id=rule_id, scope=scope, content=content, type=type,
                    conditions=conditions, signals=signals or {}, corrects=corrects,
                    expires_at=expires_at, review_every_days=review_every_days,
                    proposed_at=self._clock())
        self._bind(rule)
        return self._put(rule)

    def observe(self, rule_id: str, *, episode_id: str, task_id: str, scene: str,
                holds: bool = True, scope: str | None = None) -> Rule:
        check_text(episode_id=episode_id, task_id=task_id, scene=scene)
        # Promotion counts distinct task ids and scene tags: an empty one is not one more.
        for name, given in (("task_id", task_id), ("scene", scene)):
            if not given.strip():
                raise InvalidArgument(f"{name} is empty: an observation names its task and "
                                      "scene")
        rule = self.show(rule_id, scope)
        episode = [e for e in self._store.episodes([episode_id]) if e.scope == rule.scope]
        if not episode:  # another tenant's episode is no basis here, nor confirmed to exist
            raise NotFound(f"no episode {episode_id!r}: a rule's basis is raw episodes")
        return self._put(observe(rule, Observation(
            episode_id=episode_id, task_id=task_id, scene=scene, at=episode[0].occurred_at,
            holds=holds)))

    def promote(self, rule_id: str, *, scope: str | None = None) -> Rule:
        return self._put(promote(self.show(rule_id, scope), self.policy, self._clock()))

    def approve(self, rule_id: str, by: str, *, design_change: bool = False,
                scope: str | None = None) -> Rule:
        check_text(by=by)
        return self._put(approve(self.show(rule_id, scope), by, self._clock(),
                                 design_change=design_change))

    def review(self, rule_id: str, outcome: Outcome, by: str, reason: str = "", *,
               design_change: bool = False, scope: str | None = None) -> Rule:
        """End a review. Keeping a rule whose signal moved binds it to the value it is kept
        under (the current one), so the next move sends it to review again."""
        check_text(by=by, reason=reason)
        rule = self.show(rule_id, scope)
        after = review(rule, outcome, by, self._clock(), reason, design_change=design_change)
        if outcome is Outcome.KEEP and self.unbound(rule) is not None:
            current = {n: self.current_signal(n, rule.scope) for n in rule.signals}
            after = after.model_copy(update={"signals": {
                n: v if current[n] is None else str(current[n]) for n, v in
                rule.signals.items()}})
            self._bind(after)
        return self._put(after)

    def demote(self, rule_id: str, by: str, reason: str = "", *, design_change: bool = False,
               scope: str | None = None) -> Rule:
        return self.review(rule_id, Outcome.DEMOTE, by, reason, design_change=design_change,
                           scope=scope)

    def overturn(self, rule_id: str, by: str, reason: str, *, design_change: bool = False,
                 scope: str | None = None) -> Rule:
        check_text(by=by, reason=reason)
        return self._put(overturn(self.show(rule_id, scope), by, self._clock(), reason,
                                  design_change=design_change))

    def due(self, scope: str | None = None) -> list[Rule]:
        """Send every active rule whose review conditions came due to review: an expiry or a
        re-check interval that passed (:func:`~kg_memory.domain.rule_review.review_due`), or a
        bound signal that moved without the rule book (a plain ingest of ``env:NAME``)."""
        now = self._clock()
        moved = []
        for rule in self.all(scope):
            if rule.status != "active":
                continue
            why = review_due(rule, now) or self.unbound(rule)
            if why is not None:
                moved.append(self._put(send_to_review(rule, why, now)))
        return moved

    def pending_review(self, scope: str | None = None) -> list[Rule]:
        return [r for r in self.all(scope) if r.status == "review" or r.candidate]

    def basis(self, rule_id: str, scope: str | None = None) -> list[Episode]:
        """The raw episodes behind a rule, oldest first: where a correction starts."""
        rule = self.show(rule_id, scope)
        found = self._store.episodes([o.episode_id for o in rule.basis])
        return sorted(found, key=lambda e: (e.occurred_at, e.episode_id))


#: (derivative, source, relation, since): a lineage edge drawn from a rule document
RuleLink = tuple[str, str, str, datetime]


def rule_links(store: Store, scope: str | None) -> list[RuleLink]:
    """Lineage edges of every rule of ``scope`` (every scope's when ``None``):
    ``rule -DEPENDS_ON-> signal fact`` (through the rule's binding facts, what the rule was
    learned under) and ``rule -BASED_ON-> episode`` (its raw observations)."""
    links: list[RuleLink] = []
    for body in store.documents(RULE, scope):
        rule = Rule.model_validate_json(body)
        for o in rule.basis:
            links.append((rule.rule_id, o.episode_id, "BASED_ON", o.at))
        seen: set[str] = set()
        for v in store.history(rule.rule_id, None, rule.scope):
            if v.system.end is None and v.predicate.startswith("signal."):
                for dep in v.depends_on:
                    if dep not in seen:
                        seen.add(dep)
                        links.append((rule.rule_id, dep, "DEPENDS_ON", v.system.start))
    return links
