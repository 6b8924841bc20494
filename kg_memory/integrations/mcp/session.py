"""The channel binding behind the MCP tools: one scope, one writer, fixed by configuration.

An MCP server speaks for one conversation. :class:`BoundMemory` is that conversation's view of a
:class:`~kg_memory.Memory`: every read is limited to its scope, every write is an episode from
the source the server was started for (the user, or the agent recording what the user said), and
nothing a tool caller passes can change either. A third-party document the agent read goes
through :meth:`BoundMemory.read_document`, which records it from ``document:<origin>`` on the
document channel with its facts as claims, so the writer gate never sees it as the user's words.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from kg_memory import (
    Channel,
    Clock,
    ConcurrencyError,
    Fact,
    ForgetReport,
    IngestError,
    IngestReport,
    Kind,
    Memory,
    NotFound,
    PolicyError,
    Selector,
    lineage_tree,
    parse_instant,
    parse_record,
    system_clock,
)
from kg_memory.integrations.mcp.inputs import (
    EntityInput,
    EventInput,
    FactInput,
    RetractionInput,
)
from kg_memory.integrations.mcp.schemas import (
    AskAgainView,
    AsOfView,
    DecisionView,
    EffectView,
    EntitiesView,
    EntityView,
    FactView,
    ForgetView,
    HistoryView,
    LineageView,
    RecallHit,
    RecallView,
    RefusalsView,
    RefusalView,
    RememberView,
    ReviewPairView,
    RevisionView,
    SettleView,
)

__all__ = ["CONVERSATION_SOURCES", "BoundMemory", "plan_id"]

#: The sources an MCP server may write as: the user's conversation, directly or via the agent.
CONVERSATION_SOURCES = ("user", "agent")
_ORIGIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,99}")


def plan_id(report: ForgetReport) -> str:
    """A stable id of a forget plan: the same selector over the same store state gives the same
    id, and any change to what would be erased gives another (an If-Match for forgetting)."""
    digest = hashlib.sha256(report.plan.model_dump_json().encode()).hexdigest()
    return f"fp_{digest[:24]}"


def _when(text: str | None, what: str) -> datetime | None:
    return None if text is None else parse_instant(text, what=what)


def _qualified(fact: FactInput) -> dict[str, Any]:
    body = fact.model_dump(exclude={"project", "exceptions"}, exclude_none=True, mode="json")
    if fact.project is not None or fact.exceptions:
        body["qualifiers"] = {"project": fact.project, "exceptions": fact.exceptions}
    return body


class BoundMemory:
    """A memory bound to one scope and one writer; see the module docstring."""

    def __init__(
        self,
        memory: Memory,
        *,
        scope: str,
        source: str = "user",
        clock: Clock = system_clock,
    ) -> None:
        if source not in CONVERSATION_SOURCES:
            raise PolicyError(
                f"an MCP server writes as the user's conversation "
                f"({' or '.join(CONVERSATION_SOURCES)}), not {source!r}: other senders have "
                "channels of their own")
        if not scope:
            raise PolicyError("an MCP server needs a scope")
        self.memory = memory
        # The tenant's handle: every read, lineage walk and forget below is pinned to it, and an
        # id of another scope is "not found" there.
        self.tenant = memory.scoped(scope)
        self.scope = scope
        self.source = source
        self._clock = clock
        # The plan ids this server has shown, by selector: a plan id is a hash, so only this
        # tells a plan that changed since from an id that was never a plan of that selector.
        self._plans: dict[str, set[str]] = {}
        # Fails now, not at the first tool call, if the deployment's channel policy does not
        # let this source speak over chat.
        self.tenant.inlet(source, Channel.CHAT)

    # -- writes ------------------------------------------------------------------------------

    def _ingest(self, body: dict[str, Any], operation_id: str | None) -> IngestReport:
        if operation_id is None:
            body.setdefault("occurred_at", self._clock().isoformat())
            # Same call, same instant: the same episode, so a transport retry is a duplicate.
            digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
            operation_id = f"mcp-{digest[:24]}"
        else:
            # The caller's id names a turn of this conversation: kept apart from other scopes'
            # and writers' ids, and a retry without occurred_at is the same turn, not a
            # conflicting one stamped later.
            operation_id = f"mcp/{self.scope}/{body['source']}/{operation_id}"
            with self.memory.store.transaction(self.scope) as tx:
                prior = tx.episode_by_operation(operation_id)
            default = prior[0].occurred_at if prior else self._clock()
            body.setdefault("occurred_at", default.isoformat())
        body = {"operation_id": operation_id, "scope": self.scope, **body}
        # Through an inlet: the envelope is this channel's, and the policy in force is the
        # memory's current one.
        return self.tenant.inlet(body["source"], body["channel"]).ingest(parse_record(body))

    def _view(self, report: IngestReport, written_as: str) -> RememberView:
        effects = [EffectView(**e.model_dump()) for e in report.effects]
        return RememberView(
            operation_id=report.operation_id, episode_id=report.episode_id,
            status=report.status if report.status in ("duplicate", "refused") else "accepted",
            written_as=written_as, effects=effects,
            refused=sum(1 for e in report.effects if e.action == "refused"),
        )

    def remember(
        self,
        content: str,
        facts: Sequence[FactInput] = (),
        *,
        events: Sequence[EventInput] = (),
        entities: Sequence[EntityInput] = (),
        retractions: Sequence[RetractionInput] = (),
        occurred_at: str | None = None,
        operation_id: str | None = None,
    ) -> RememberView:
        """Record one episode of the conversation and its candidate facts, as this source."""
        body: dict[str, Any] = {
            "source": self.source, "channel": Channel.CHAT.value, "content": content,
            "assertions": [_qualified(f) for f in facts],
            "events": [e.model_dump(exclude_none=True) for e in events],
            "entities": [e.model_dump(exclude_none=True) for e in entities],
            "retractions": [r.model_dump(exclude_none=True) for r in retractions],
        }
        if occurred_at is not None:
            body["occurred_at"] = occurred_at
        return self._view(self._ingest(body, operation_id), f"{self.source} over chat")

    def read_document(
        self,
        origin: str,
        content: str,
        claims: Sequence[FactInput] = (),
        *,
        occurred_at: str | None = None,
        operation_id: str | None = None,
    ) -> RememberView:
        """Record a third-party text the agent read: its source is ``document:<origin>``, its
        facts are claims (someone else's words), and it carries no events or entities, so it can
        end nothing and own nothing."""
        if not _ORIGIN.fullmatch(origin):
            raise IngestError("an origin is a name such as 'chez-lili' or 'example.org/menu' "
                              "(letters, digits, '.', '_', '/', '-')", field="origin")
        source = f"document:{origin}"
        assertions = [
            _qualified(f.model_copy(update={"kind": Kind.CLAIM, "depends_on": []})) for f in claims
        ]
        body: dict[str, Any] = {"source": source, "channel": Channel.DOCUMENT.value,
                                "content": content, "assertions": assertions}
        if occurred_at is not None:
            body["occurred_at"] = occurred_at
        return self._view(self._ingest(body, operation_id), f"{source} over document")

    # -- reads -------------------------------------------------------------------------------

    def _facts(self, valid_at: datetime | None, known_at: datetime | None,
               subject: str | None = None, predicate: str | None = None) -> AsOfView:
        answer = self.tenant.asof(valid_at, known_at, subject=subject, predicate=predicate)
        return AsOfView(valid_at=answer.valid_at, known_at=answer.known_at,
                        facts=[FactView.of(f) for f in answer.facts])

    def asof(self, valid_at: str | None = None, known_at: str | None = None, *,
             subject: str | None = None, predicate: str | None = None) -> AsOfView:
        """What held at ``valid_at`` as the store believed it at ``known_at`` (both default now)."""
        return self._facts(_when(valid_at, "valid_at"), _when(known_at, "known_at"),
                           subject, predicate)

    def recall(self, query: str, *, subject: str | None = None, at: str | None = None,
               known_at: str | None = None, limit: int = 10) -> RecallView:
        """``Memory.recall`` in this scope: eligibility first (valid at ``at``, believed at
        ``known_at``, not forgotten or blocked), then ranking; facts and messages alike."""
        answer = self.tenant.recall(query, subject=subject, at=_when(at, "at"),
                                    known_at=_when(known_at, "known_at"), limit=limit)
        hits = [RecallHit(
            type=h.type, id=h.id, revision=h.revision, content=h.content, value=h.value,
            subject=h.subject, predicate=h.predicate, kind=h.kind, writer=h.writer,
            as_user_statement=h.own_words, historical_only=h.historical_only, label=h.label,
            valid_from=h.valid.start, valid_to=h.valid.end, known_since=h.system.start,
            known_until=h.system.end, supported_by=[x.episode_id for x in h.supported_by],
            score=round(h.score.score, 4)) for h in answer.results]
        return RecallView(query=query, status="ok" if hits else "empty",
                          method=f"kg-memory recall ({answer.mode})", at=answer.at,
                          known_at=answer.known_at, eligible=answer.eligible,
                          excluded=dict(answer.excluded), results=hits,
                          ask_again=[AskAgainView(
                              assertion_id=a.assertion_id, revision=a.revision,
                              subject=a.subject, predicate=a.predicate,
                              last_confirmed=a.last_confirmed, age_days=round(a.age_days, 2),
                              half_life_days=a.half_life_days, reason=a.reason)
                              for a in answer.ask_again])

    def history(self, subject: str, predicate: str | None = None) -> HistoryView:
        entries = self.tenant.history(subject, predicate)
        return HistoryView(subject=subject, predicate=predicate,
                           revisions=[RevisionView.of(e) for e in entries])

    def lineage(self, node_id: str, direction: Literal["up", "down", "both"] = "both",
                depth: int | None = None) -> LineageView:
        graph = self.tenant.lineage(node_id, direction, depth)
        return LineageView(root=node_id, direction=direction,
                           tree=lineage_tree(graph, node_id, direction))

    def refusals(self) -> RefusalsView:
        return RefusalsView(refusals=[
            RefusalView(episode_id=r.episode_id, source=r.source, what=r.what, reason=r.reason,
                        at=r.at)
            for r in self.tenant.refusals()])

    def entity(self, entity_id: str) -> EntityView:
        known = {e.entity_id: e for e in self.tenant.entities()}
        facts = self._facts(None, None, subject=entity_id).facts
        if entity_id not in known and not facts:
            raise NotFound(f"no entity {entity_id!r} in scope {self.scope!r}")
        profile = self.tenant.profile(entity_id)
        entity = known.get(entity_id)
        names = list(profile.names) if profile else [entity.name] if entity and entity.name else []
        return EntityView(
            entity_id=entity_id,
            type=profile.type if profile else entity.type if entity else None,
            names=names,
            identifiers=[f"{i.kind.value}:{i.value}" for i in profile.identifiers]
            if profile else [],
            decisions=[DecisionView.of(r)
                       for r in self.tenant.decisions(entity_id)],
            facts=facts,
        )

    def entities(self, action: Literal["show", "review"], entity_id: str | None = None
                 ) -> EntitiesView:
        """One entity's profile, decisions and facts ("show"), or the open review queue."""
        if action == "review":
            return EntitiesView(
                action="review", review=[DecisionView.of(r) for r in self.tenant.review()],
                queue=[ReviewPairView.of(p) for p in self.tenant.review_queue()])
        if not entity_id:
            raise IngestError("entities show needs an entity_id", field="entity_id")
        return EntitiesView(action="show", entity=self.entity(entity_id))

    def settle(self, pair_id: str, decision: Literal["merge", "apart"], decided_by: str,
               token: str, reason: str = "") -> SettleView:
        """Settle a review pair as the user decided it. ``token`` is the pair's from the queue
        the user was shown: if the pair changed since (new facts, another decision), the user
        decided on something else, and it is refused. Settling it the way it already is settled
        is a no-op (a retry)."""
        provisional, _, candidate = pair_id.partition(":")
        shown = {p.pair_id: p for p in self.tenant.review_queue(settled=True)}
        pair = shown.get(pair_id)
        if pair is None or not provisional or not candidate:
            raise NotFound(f"no review pair {pair_id!r} in scope {self.scope!r}; the queue is "
                           "entities(action='review')")
        done = pair.settled
        again = done is not None and (done.outcome.value == "merge") == (decision == "merge")
        if not again and token != pair.token:
            raise ConcurrencyError(
                f"review pair {pair_id} changed since it was shown (token {pair.token}, not "
                f"{token}): read the queue again and ask the user again")
        resolved = self.tenant.settle(provisional, candidate, decision, by=decided_by,
                                      reason=reason)
        other = "apart" if decision == "merge" else "merge"
        return SettleView(
            pair_id=pair_id, decision=decision, decision_id=resolved.decision.decision_id,
            decided_by=resolved.decision.decided_by, reason=resolved.decision.reason,
            next_step=f"done; to reverse it, settle {pair_id} as {other!r} (the user decides)")

    # -- forgetting --------------------------------------------------------------------------

    def _selector(self, text: str) -> Selector:
        """The selector as the tenant's handle confines it (a selector naming another scope is
        a ScopeError there); a malformed one is bad input."""
        try:
            return Selector.parse(text)
        except ValueError as exc:
            raise PolicyError(str(exc)) from None

    def forget(self, selector: str, plan: str | None = None) -> ForgetView:
        """Without ``plan``, a dry run: the plan and its id. With the id of the current plan,
        execute it. A plan that changed in between is refused, not executed."""
        chosen = self._selector(selector)
        preview = self.tenant.forget(chosen, dry_run=True)
        current = plan_id(preview)
        if plan is None:
            self._plans.setdefault(selector, set()).add(current)
            return _forget_view(preview, current, executed=False)
        if plan != current and plan not in self._plans.get(selector, ()):
            raise NotFound(
                f"no forget plan {plan!r} for {selector!r}: a plan id comes from a dry run of "
                "the same selector; call forget without plan_id to see the plan and its id")
        if plan != current:
            raise ConcurrencyError(
                f"the plan for {selector!r} is now {current}, not {plan}: what it would erase "
                "changed; review the new plan before executing it")
        return _forget_view(self.tenant.forget(chosen), current, executed=True)


def _text(fact: Fact) -> str:
    return f"{fact.subject} {fact.predicate.replace('_', ' ')} {fact.value}"


def _forget_view(report: ForgetReport, pid: str, *, executed: bool) -> ForgetView:
    plan = report.plan
    if executed:
        step = "done: nothing of it can be recalled, at any time."
    elif plan.is_empty:
        step = "nothing to forget."
    else:
        step = f"call forget again with plan_id={pid!r} to execute this plan."
    return ForgetView(
        plan_id=pid, selector=report.selector, executed=executed, status=report.status,
        delete=list(plan.delete), rebuild=list(plan.rebuild), erase=list(plan.erase),
        redact=list(plan.redact), restore=list(plan.restore), retire=list(plan.retire),
        retain=list(plan.retain),
        destinations=list(report.destinations), next_step=step,
    )

