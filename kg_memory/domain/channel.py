"""Channel binding: which sources may arrive over which ingest channel, as data.

The writer of a fact is the envelope's ``source``, so the source must be something the
deployment *established*, not something a sender typed. The ingest channel is what the
deployment authenticates (the chat session is the user's, the webhook endpoint is the
restaurant's signed callback, the timer is kg-memory's scheduler); a :class:`ChannelPolicy` says
which sources each channel can vouch for, and an envelope that breaks it is refused and audited
before any of its candidates is looked at:

>>> policy = ChannelPolicy.default()
>>> bind(policy, source="user", channel=Channel.CHAT).admitted
True
>>> bind(policy, source="user", channel=Channel.WEBHOOK).reason
'source user may not arrive over webhook (default channels)'
>>> bind(policy, source="consolidator", channel=Channel.TIMER).reason
"source consolidator is kg-memory's own worker identity; ingest cannot claim it"

kg-memory's own workers (the consolidator, the forget worker, the resolver) write through their
own code paths, never through ingest, so no channel and no policy can admit them as a source.
"""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kg_memory.domain.errors import PolicyError
from kg_memory.domain.limits import unique_keys
from kg_memory.domain.model import Channel, Envelope

__all__ = [
    "INTERNAL_IDENTITIES",
    "Binding",
    "ChannelPolicy",
    "ChannelRule",
    "Sender",
    "bind",
    "envelope_of",
    "is_internal",
]

#: The agents kg-memory's own activities are attributed to (PROV agents, decision makers).
#: Kept here, in the domain, so that every layer refuses the same names; a test checks that the
#: services' constants (``CONSOLIDATOR``, ``FORGETTER``, ``RESOLVER``) are all listed.
INTERNAL_IDENTITIES = frozenset(
    {"consolidator", "kg-memory-forget", "resolver", "kg-memory", "preview"}
)


def _normal(name: str) -> str:
    # "Consolidator ", "kg_memory_forget" and "RESOLVER" are the same claim to a reader of the
    # audit or a PROV export, so they are refused alike.
    return name.strip().casefold().replace("_", "-")


def is_internal(source: str) -> bool:
    """Whether ``source`` names (or imitates) one of kg-memory's own worker identities."""
    name = _normal(source)
    return name in INTERNAL_IDENTITIES or name.startswith("kg-memory")


class ChannelRule(BaseModel):
    """Sources matching ``sources`` (globs) may arrive over ``channels``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sources: tuple[str, ...]
    channels: tuple[Channel, ...]


class Binding(BaseModel):
    model_config = ConfigDict(frozen=True)

    admitted: bool
    reason: str


class ChannelPolicy(BaseModel):
    """Ordered rules; the first rule whose ``sources`` match the source decides."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "custom"
    version: int = 1
    rules: tuple[ChannelRule, ...] = Field(default=())

    @classmethod
    def default(cls) -> ChannelPolicy:
        """The user only over chat; the agent over chat or its tool calls; the timer only over
        the timer; everyone else (restaurants, registries, tools, documents) over webhook, tool,
        document or API, never over chat or timer."""
        return cls(
            name="default",
            version=1,
            rules=(
                ChannelRule(sources=("user",), channels=(Channel.CHAT,)),
                ChannelRule(sources=("agent",), channels=(Channel.CHAT, Channel.TOOL)),
                ChannelRule(sources=("timer",), channels=(Channel.TIMER,)),
                ChannelRule(
                    sources=("*",),
                    channels=(Channel.WEBHOOK, Channel.TOOL, Channel.DOCUMENT, Channel.API),
                ),
            ),
        )

    @classmethod
    def load(cls, path: Path) -> ChannelPolicy:
        """Read a policy from a JSON file shaped like ``ChannelPolicy.default().model_dump()``."""
        try:
            return cls.model_validate(json.loads(path.read_text(encoding="utf-8"),
                                                 object_pairs_hook=unique_keys))
        except (OSError, ValueError, ValidationError) as exc:
            raise PolicyError(f"channel policy {path}: {exc}") from exc


#: The decisions of the last policy asked, by (source, channel). A policy is immutable (frozen,
#: tuples all the way down), so its decision on an envelope never changes; a process ingests
#: under one policy from a few sources, and deciding again cost about 10 us an episode. Held
#: by identity with a reference to the policy, so an id is never reused while it is here;
#: bounded, so sources that are all different cannot grow it.
_decided: tuple[ChannelPolicy | None, dict[tuple[str, Channel], Binding]] = (None, {})
_DECIDED_MAX = 256


def bind(policy: ChannelPolicy, *, source: str, channel: Channel) -> Binding:
    """Whether an envelope claiming ``source`` may arrive over ``channel``."""
    global _decided
    held, decided = _decided
    if held is not policy:
        held, decided = _decided = (policy, {})
    found = decided.get((source, channel))
    if found is None:
        found = _bind(policy, source, channel)
        if len(decided) < _DECIDED_MAX:
            decided[(source, channel)] = found
    return found


def _bind(policy: ChannelPolicy, source: str, channel: Channel) -> Binding:
    if is_internal(source):
        return Binding(
            admitted=False,
            reason=f"source {source} is kg-memory's own worker identity; ingest cannot claim it",
        )
    for rule in policy.rules:
        if any(fnmatchcase(source, pattern) for pattern in rule.sources):
            if channel in rule.channels:
                return Binding(admitted=True, reason=f"{policy.name}: {source} over {channel}")
            break
    return Binding(
        admitted=False,
        reason=f"source {source} may not arrive over {channel.value} ({policy.name} channels)",
    )


class Sender(BaseModel):
    """Who an authenticated channel established as the sender: an inlet's own source over its
    own channel, whatever the payload it carried claims."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    channel: Channel


def envelope_of(
    binding: Binding, *, source: str, channel: Channel, sender: Sender | None = None
) -> tuple[Envelope, str | None, Channel]:
    """The decision stored with an episode: (envelope, sent_by, sent_over).

    An admitted envelope was sent by its source over its channel. A refused one was not sent by
    the source it claims: it was sent by ``sender`` when the channel established one (an
    inlet), else by nobody anyone vouched for (``None``), over the channel it really used.

    >>> refused = bind(ChannelPolicy.default(), source="user", channel=Channel.WEBHOOK)
    >>> envelope_of(refused, source="user", channel=Channel.WEBHOOK)
    (<Envelope.REFUSED: 'refused'>, None, <Channel.WEBHOOK: 'webhook'>)
    """
    if binding.admitted:
        return Envelope.ADMITTED, source, channel
    if sender is None:
        return Envelope.REFUSED, None, channel
    return Envelope.REFUSED, sender.source, sender.channel
