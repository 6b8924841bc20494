"""The review queue over MCP (issue 29), through the SDK's own client, on both backends.

An agent lists the pairs the resolver could not decide (ordered, fields side by side), asks its
user, and settles a pair naming the user. The pair's token says what the user was shown: a pair
that changed since is refused; a retry is a no-op; the other decision reverses it; another
tenant's pair is not found.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("mcp", reason="needs the kg-memory-bitemporal[mcp] extra")

from mcp import Client

from kg_memory import Memory
from kg_memory.integrations.mcp import build_server
from tests.conftest import ManualClock, day
from tests.test_mcp_server import call, error
from tests.test_review_queue import OKAFORS_RECORD, _said, _twins


def _values(memory: Memory, subject: str) -> set[object]:
    return {f.value for f in memory.asof(subject=subject).facts if f.predicate != "same_as"}


def test_an_agent_lists_the_queue_asks_and_settles_naming_the_user(
    memory: Memory, clock: ManualClock
) -> None:
    melinda, jaes = _twins(memory, clock)
    _said(memory, clock, 3, "c", "Ann Okafor", {"likes": "jazz"}, OKAFORS_RECORD)
    _said(memory, clock, 4, "d", "Beth Okafor", {}, OKAFORS_RECORD)
    theirs_p, theirs_c = _twins(memory, clock, scope="other")
    server = build_server(memory, scope="acme", clock=clock)

    async def main() -> None:
        async with Client(server) as client:
            listed = await call(client, "entities", action="review")
            queue: list[dict[str, Any]] = listed["queue"]
            assert [p["mention"] for p in queue] == ["Melinda Sandman", "Beth Okafor"]
            first = queue[0]
            assert first["pair_id"] == f"{melinda}:{jaes}"
            assert (first["pooled"], [c["predicate"] for c in first["conflicts"]]) == (
                5, ["likes"])
            verdicts = {f["field"]: f["verdict"] for f in first["fields"]}
            assert verdicts["given_name"] == "disagree"
            assert verdicts["birth_date"] == "agree"
            pair, token = first["pair_id"], first["token"]

            # Nobody named, or the resolver named: refused, typed.
            assert (await error(client, "settle", pair_id=pair, decision="apart",
                                decided_by=" ", token=token)).startswith("InvalidArgument: ")
            assert (await error(client, "settle", pair_id=pair, decision="apart",
                                decided_by="resolver", token=token)
                    ).startswith("ResolutionError: ")
            # Another tenant's pair is not found from here.
            assert (await error(client, "settle", pair_id=f"{theirs_p}:{theirs_c}",
                                decision="merge", decided_by="ana", token=token)
                    ).startswith("NotFound: ")
            # What the user was shown changed (Jaes gained a fact): ask again.
            _said(memory, clock, 5, "e", "Jaes Sandman", {"shoe": "44"})
            assert (await error(client, "settle", pair_id=pair, decision="merge",
                                decided_by="ana", token=token)
                    ).startswith("ConcurrencyError: ")
            fresh = (await call(client, "entities", action="review"))["queue"][0]
            assert fresh["pair_id"] == pair
            assert fresh["token"] != token
            clock.now = day(6)  # the user answers a day later
            merged = await call(client, "settle", pair_id=pair, decision="merge",
                                decided_by="ana", token=fresh["token"],
                                reason="she said they are one person")
            assert (merged["decided_by"], merged["reason"]) == (
                "ana", "she said they are one person")
            assert "melbourne" in {str(v).lower() for v in _values(memory, jaes)}
            assert "coffee" in _values(memory, jaes)
            # A retry (the same settlement, the old token) is a no-op returning the decision.
            again = await call(client, "settle", pair_id=pair, decision="merge",
                               decided_by="ana", token=fresh["token"])
            assert again["decision_id"] == merged["decision_id"]
            assert [p["pair_id"] for p in
                    (await call(client, "entities", action="review"))["queue"]] == [
                        queue[1]["pair_id"]]
            # Reversed by the other decision, with the token of the pair as it is now.
            now = next(p for p in memory.scoped("acme").review_queue(settled=True)
                       if p.pair_id == pair)
            clock.now = day(7)
            apart = await call(client, "settle", pair_id=pair, decision="apart",
                               decided_by="ana", token=now.token, reason="twins after all")
            assert apart["decision_id"] != merged["decision_id"]
            assert "coffee" not in _values(memory, jaes)
            assert memory.scoped("other").review_queue()[0].settled is None

    asyncio.run(main())
