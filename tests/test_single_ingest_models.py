"""The agent's path builds its episode, report and envelope decision without deciding or
validating them again (issue 28, session 20): the same values as the validated models, and
a policy's remembered decisions never answer for another policy."""

from __future__ import annotations

from datetime import UTC

from kg_memory import IngestRecord
from kg_memory.domain import channel as channel_module
from kg_memory.domain.channel import ChannelPolicy, ChannelRule, bind
from kg_memory.domain.gate import WriterPolicy
from kg_memory.domain.model import Channel, Episode
from kg_memory.services.admission import receive
from kg_memory.services.ingestion import IngestReport, ingest_record
from kg_memory.store import open_store
from tests.conftest import EPOCH


def _turn(operation_id: str, channel: str = "chat") -> IngestRecord:
    return IngestRecord.model_validate({
        "operation_id": operation_id, "source": "user", "channel": channel, "scope": "u1",
        "occurred_at": "2026-01-05T11:00:00+02:00", "content": "we talked about lisbon"})


def test_a_policys_decision_is_remembered_for_it_and_never_for_another() -> None:
    user_chat = ChannelPolicy(rules=(ChannelRule(sources=("user",), channels=(Channel.CHAT,)),))
    nobody = ChannelPolicy(rules=())
    admitted = bind(user_chat, source="user", channel=Channel.CHAT)
    assert admitted.admitted
    assert bind(user_chat, source="user", channel=Channel.CHAT) is admitted
    refused = bind(nobody, source="user", channel=Channel.CHAT)
    assert not refused.admitted
    assert refused == channel_module._bind(nobody, "user", Channel.CHAT)
    assert bind(user_chat, source="user", channel=Channel.CHAT) == admitted
    assert not bind(user_chat, source="user", channel=Channel.WEBHOOK).admitted


def test_the_remembered_decisions_are_bounded() -> None:
    policy = ChannelPolicy.default()
    for n in range(channel_module._DECIDED_MAX + 50):
        assert bind(policy, source=f"tool-{n}", channel=Channel.TOOL).admitted
    held, decided = channel_module._decided
    assert held is policy
    assert len(decided) == channel_module._DECIDED_MAX


def test_the_episode_and_report_equal_their_validated_models() -> None:
    store = open_store(":memory:", clock=lambda: EPOCH)
    try:
        for n, record in enumerate((_turn("t1"), _turn("t2", channel="webhook"))):
            with store.transaction("u1") as tx:
                episode, _ = receive(tx, record, f"ep_{n}", "hash", ChannelPolicy.default())
                now = tx.now
            assert episode == Episode.model_validate(episode.model_dump())
            assert episode.occurred_at.tzinfo is UTC
            assert episode.recorded_at == now
        with store.transaction("u1") as tx:
            report = ingest_record(tx, _turn("t3"), WriterPolicy.default(), b"k" * 32)
        assert report.status == "accepted"
        assert report == IngestReport.model_validate(report.model_dump())
        assert report.system_time is not None
        assert report.system_time.tzinfo is UTC
    finally:
        store.close()
