"""A small LangGraph agent whose nodes read and write memory through ``store``: KgMemoryStore.

The model is LangChain's scripted chat model (no network): it answers each turn with the
memories to save, as JSON. One node saves them with ``runtime.store.put``, the next recalls with
``runtime.store.search`` and answers. The user id comes from the run's context, so it becomes the
scope of every namespace.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

import pytest

pytest.importorskip("langgraph.graph", reason="needs the kg-memory-bitemporal[langgraph] extra")

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from kg_memory import Memory
from kg_memory.integrations.langgraph import KgMemoryStore
from tests.conftest import MemoryFactory, day
from tests.test_langgraph_store import TickingClock


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


@dataclass
class Context:
    user_id: str


def build(model: FakeListChatModel, *, asynchronous: bool = False) -> StateGraph[Any, Any]:
    def remember(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        assert runtime.store is not None
        reply = model.invoke(state["messages"])
        for m in json.loads(str(reply.content))["remember"]:
            runtime.store.put((runtime.context.user_id, m["about"]), m["key"],
                              {"value": m["value"]})
        return {}

    async def aremember(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        assert runtime.store is not None
        reply = await model.ainvoke(state["messages"])
        for m in json.loads(str(reply.content))["remember"]:
            await runtime.store.aput((runtime.context.user_id, m["about"]), m["key"],
                                     {"value": m["value"]})
        return {}

    def answer(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        assert runtime.store is not None
        question = str(state["messages"][-1].content)
        found = runtime.store.search((runtime.context.user_id,), query=question, limit=3)
        said = "; ".join(f"{i.namespace[-1]} {i.key}: {i.value['value']}" for i in found)
        return {"messages": [AIMessage(content=f"I remember: {said or 'nothing'}")]}

    builder: StateGraph[Any, Any] = StateGraph(State, context_schema=Context)
    builder.add_node("remember", aremember if asynchronous else remember)
    builder.add_node("answer", answer)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "answer")
    builder.add_edge("answer", END)
    return builder


SCRIPT = [
    json.dumps({"remember": [{"about": "ana", "key": "diet", "value": "vegetarian"}]}),
    json.dumps({"remember": []}),
    json.dumps({"remember": [{"about": "ana", "key": "diet", "value": "eats fish"}]}),
    json.dumps({"remember": []}),
    json.dumps({"remember": []}),
]


def _say(graph: CompiledStateGraph[Any, Any, Any, Any], text: str, user: str) -> str:
    out = graph.invoke({"messages": [HumanMessage(content=text)]}, context=Context(user_id=user))
    return str(out["messages"][-1].content)


def test_a_graph_remembers_and_recalls_through_the_store(make_memory: MemoryFactory) -> None:
    clock = TickingClock(day(0))
    memory: Memory = make_memory(clock)
    graph = build(FakeListChatModel(responses=SCRIPT)).compile(store=KgMemoryStore(memory,
                                                                                   clock=clock))

    _say(graph, "My friend Ana comes to dinner. She's vegetarian.", "u1")
    assert _say(graph, "What should I cook? What is Ana's diet?", "u1") == \
        "I remember: ana diet: vegetarian"
    _say(graph, "Ana eats fish now.", "u1")
    assert _say(graph, "And now, what is Ana's diet?", "u1") == \
        "I remember: ana diet: eats fish"
    assert _say(graph, "What is Ana's diet?", "u2") == "I remember: nothing"

    # What the graph wrote is kg-memory's own fact, with its writer and its history.
    history = memory.history("ana", "diet", scope="u1")
    first = history[0].version
    assert (first.value, first.writer) == ("vegetarian", "agent")
    assert history[0].close_reason == "superseded"
    assert memory.asof(clock.now, clock.now, scope="u1").values() == ["eats fish"]


def test_an_async_graph_writes_through_abatch(make_memory: MemoryFactory) -> None:
    clock = TickingClock(day(0))
    memory: Memory = make_memory(clock)
    store = KgMemoryStore(memory, clock=clock)
    graph = build(FakeListChatModel(responses=SCRIPT), asynchronous=True).compile(store=store)

    async def main() -> str:
        await graph.ainvoke({"messages": [HumanMessage(content="Ana is vegetarian.")]},
                            context=Context(user_id="u1"))
        out = await graph.ainvoke({"messages": [HumanMessage(content="Ana's diet?")]},
                                  context=Context(user_id="u1"))
        return str(out["messages"][-1].content)

    assert asyncio.run(main()) == "I remember: ana diet: vegetarian"
    assert store.get(("u1", "ana"), "diet").value == {"value": "vegetarian"}  # type: ignore[union-attr]
