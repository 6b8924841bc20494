"""An inlet: one authenticated channel into a memory, which sets the envelope itself.

The writer of every fact is the envelope's ``source``, so the envelope must come from how the
input arrived, not from the input. An application opens one inlet per authenticated channel
(the logged-in user's chat session, the restaurant's verified webhook) and ingests through it:

>>> from kg_memory import Channel, Memory
>>> memory = Memory.open(":memory:")
>>> webhook = memory.inlet("restaurant", Channel.WEBHOOK)
>>> webhook.ingest({"operation_id": "r-1", "occurred_at": "2026-01-07T09:00:00Z",
...                 "assertions": [{"subject": "u1", "predicate": "deposit_preapproved",
...                                 "value": "yes", "kind": "stated"}]}).effects[0].action
'refused'
>>> webhook.ingest({"operation_id": "r-2", "source": "user", "channel": "chat",
...                 "occurred_at": "2026-01-07T09:00:00Z"}).status
'refused'

A payload without ``source`` and ``channel`` gets the inlet's; one that claims another is
refused and audited like any forged envelope. An inlet opened for one tenant
(``memory.scoped("u1").inlet(...)``, or ``scope=``) also sets the envelope's ``scope``: a payload
that names another scope is refused with :class:`~kg_memory.domain.errors.ScopeError` and
nothing is written anywhere. Opening an inlet the deployment's channel policy
does not allow (the user over a webhook, a kg-memory worker identity) is a
:class:`~kg_memory.domain.errors.PolicyError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kg_memory.domain.channel import ChannelPolicy, ChannelRule, Sender, bind
from kg_memory.domain.errors import PolicyError, ScopeError
from kg_memory.domain.gate import WriterPolicy
from kg_memory.domain.model import Channel
from kg_memory.domain.record import IngestRecord, parse_record
from kg_memory.domain.write_policy import WritePolicy
from kg_memory.services.batch_ingest import ingest_one
from kg_memory.services.ingestion import IngestReport
from kg_memory.store.protocol import Store

__all__ = ["Inlet"]


class Inlet:
    """Ingest as ``source`` over ``channel``; open one with :meth:`kg_memory.Memory.inlet`."""

    def __init__(
        self,
        store: Store,
        *,
        source: str,
        channel: Channel,
        policy: WriterPolicy,
        channels: ChannelPolicy,
        secret: bytes,
        write_policy: WritePolicy | None = None,
        scope: str | None = None,
    ) -> None:
        binding = bind(channels, source=source, channel=channel)
        if not binding.admitted:
            raise PolicyError(f"cannot open an inlet: {binding.reason}")
        self.source = source
        self.channel = channel
        self.scope = scope
        self._store = store
        self._policy = policy
        self._secret = secret
        self._write_policy = write_policy
        # Only this inlet's own envelope passes: anything else a payload claims is refused.
        self._bound = ChannelPolicy(
            name=f"inlet {source} over {channel.value}",
            rules=(ChannelRule(sources=(source,), channels=(channel,)),),
        )

    def record(self, payload: IngestRecord | Mapping[str, Any]) -> IngestRecord:
        """The record to ingest: a mapping gets the inlet's envelope where it names none."""
        if isinstance(payload, IngestRecord):
            return payload
        data = dict(payload)
        data.setdefault("source", self.source)
        data.setdefault("channel", self.channel.value)
        if self.scope is not None:
            data.setdefault("scope", self.scope)
        return parse_record(data)

    def ingest(self, payload: IngestRecord | Mapping[str, Any]) -> IngestReport:
        """Write one episode through this inlet; durable when this returns."""
        record = self.record(payload)
        if self.scope is not None and record.scope != self.scope:
            raise ScopeError(f"this inlet writes to scope {self.scope!r}; the payload names "
                             f"{record.scope!r}")
        return ingest_one(self._store, record, policy=self._policy, secret=self._secret,
                          channels=self._bound, write_policy=self._write_policy,
                          sender=Sender(source=self.source, channel=self.channel))
