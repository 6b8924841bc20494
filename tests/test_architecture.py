"""The tree shows the architecture, and these tests keep it that way.

Layers are folders (domain, services, store adapters, entry points); import-linter's contracts
in ``pyproject.toml`` hold their direction; no module imports itself back through a cycle; the
public facade's ``__all__`` is pinned, as httpx pins its own, so widening the API is a decision
and not an accident. The test suite keeps one rule of its own: every test that reaches the Neo4j
server carries the ``neo4j`` mark, the switch that skips it when ``KG_TEST_BACKENDS`` leaves the
server out.
"""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import networkx as nx
import pytest
from importlinter.cli import lint_imports

import kg_memory
from tests.conftest import ROOT

PACKAGE = ROOT / "kg_memory"
MODULE_LINES = 450  # "about 400": a module past this is two concepts

PUBLIC = [
    "AsOfAnswer", "AsOfQuery", "Assertion", "Basis", "ChangePlan", "Channel", "Clock",
    "ConcurrencyError", "ConsolidationRefused", "Direction", "EXIT_CODES", "EXIT_MEANINGS",
    "Edge", "EdgeType",
    "Effect", "EndReason", "Entity", "Episode", "Evidence", "Fact", "ForgetPlan", "ForgetReport",
    "ForgottenError", "GateRule", "HistoryEntry", "IdempotencyConflict", "IngestError",
    "ImportOrderError",
    "IngestRecord", "IngestReport", "Interval", "IntervalError", "KgMemoryError", "Kind",
    "Memory", "MentionCandidate", "NaiveDatetimeError", "Neo4jStore", "NotFound", "PolicyError",
    "Published", "Qualifiers", "Refusal", "ResolutionError", "Resolved", "Retention", "ScopeError",
    "ScopedMemory", "Selector",
    "SqliteStore", "Store", "StoreUnavailable", "Support", "SyncReport", "TimeError",
    "Tombstone", "Transaction", "WriterPolicy", "__version__", "admit", "default_path",
    "ingest_schema", "lineage_graph", "lineage_tree", "node_about", "open_store", "parse_instant",
    "parse_record", "preview_resolution", "read_records", "serialize_prov", "sync_mirror",
    "system_clock",
    # the writer gate's policies and what an answer says about trust (issue 10)
    "DEFAULT_AUTHORITY", "AuthorityTier", "ChannelPolicy", "ChannelRule", "Conflict",
    "Corroboration", "Inlet", "OwnerGrant", "corroboration", "mentioned",
    # write policies: admission, reconcile, decay, pending candidates, retention (issue 12)
    "AdmissionDecision", "Mode", "PendingCandidate", "PredicateRule", "Recalled", "ScopeLabel",
    "SweepReport", "WritePolicy", "recall_value",
    # layers and promotion (issue 12, seed 004)
    "Outcome", "PromotionPolicy", "Rule", "RuleBook", "RuleType", "Tier",
    # a tenant's rule book (ScopedMemory.rules)
    "ScopedRuleBook",
    # the agent integrations' errors (issue 14)
    "ExtraMissing", "QueryError", "WriteRefused",
    # Issue 11 (durability and concurrency): retry policy, busy and check exit codes, the
    # retryable error, and the integrity check's report.
    "Backoff", "INTEGRITY_EXIT", "IntegrityReport", "STORE_BUSY_EXIT", "StoreBusy", "Violation",
    # recall (issue 13)
    "EligibilityRule", "Embedder", "HashingEmbedder", "RankingWeights", "RecallAnswer",
    "RecallError", "RecallHit", "RecallUnavailable", "RecalledEpisode", "ScoreComponents",
    # Issue 11 (bad input): the typed argument error and the parsers the CLI uses.
    "InvalidArgument", "count_records", "parse_mention",
    # Neo4j schema 3 (issue 16): the migration's typed refusal and its report.
    "MigrationReport", "StoreNeedsMigration",
    # Issue 25 (finding 10): a read-only or full store, and an unfinished run's exit code.
    "INCOMPLETE_EXIT", "StoreFull", "StoreReadOnly",
    # ... and a write its caller cancelled before the commit (MCP).
    "WriteCancelled", "cancellable",
    # Issue 26: the shipped model, the models users bring, one way to choose, the refusal.
    "EMBEDDER_ENV", "EmbedderMismatch", "FastEmbedEmbedder", "MiniLMEmbedder",
    "OpenAIEmbedder", "SentenceTransformersEmbedder", "resolve_embedder",
    # Issue 29: the review queue's item (Memory.review_queue).
    "ReviewPair",
]


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_public_api_is_pinned() -> None:
    assert sorted(kg_memory.__all__) == sorted(PUBLIC)
    for name in kg_memory.__all__:
        assert getattr(kg_memory, name) is not None, name


def test_an_unknown_public_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Neo4jStor'"):
        _ = kg_memory.Neo4jStor


def test_the_layers_are_folders() -> None:
    top = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert {"domain", "services", "store", "cli", "integrations"} <= top
    assert {p.name for p in (PACKAGE / "store").iterdir() if p.is_dir()} >= {"sqlite", "neo4j"}
    loose = {p.stem for p in PACKAGE.glob("*.py")}
    assert loose == {"__init__"}, f"modules outside a layer: {sorted(loose - {'__init__'})}"


def test_import_linter_contracts_hold() -> None:
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0


def test_no_module_imports_itself_back_through_a_cycle() -> None:
    graph = grimp.build_graph("kg_memory")
    imports: nx.DiGraph[str] = nx.DiGraph()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            imports.add_edge(module, imported)
    assert list(nx.simple_cycles(imports)) == []


def test_every_module_names_its_public_surface_and_stays_small() -> None:
    for path in _modules():
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT)
        assert len(text.splitlines()) <= MODULE_LINES, f"{rel} is over {MODULE_LINES} lines"
        if path.name == "__main__.py":
            continue
        tree = ast.parse(text)
        names = [
            t.id for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign)
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name)
        ]
        assert "__all__" in names, f"{rel} has no __all__"


def test_every_code_package_ships_in_the_wheel() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in PACKAGE.rglob("__init__.py")
    }
    assert on_disk <= listed, f"add to [tool.setuptools] packages: {sorted(on_disk - listed)}"
    mapped = config["tool"]["setuptools"]["package-dir"]
    assert all((ROOT / folder).is_dir() for folder in mapped.values())
    resources = importlib.import_module("kg_memory.resources")
    assert {f"kg_memory.resources.{n}" for n in resources.FOLDERS} == set(mapped)
    assert {f"kg_memory.resources.{n}": f for n, f in resources.FOLDERS.items()} == mapped


# -- tests that reach the Neo4j server carry the mark -----------------------------------------

#: What reaches the suite's server: its environment variables, the contract suite's connector,
#: and the bench's Neo4j run (a connection to an unreachable address on purpose does not count).
_SERVER_ENV = {"KG_NEO4J_URI", "KG_NEO4J_HTTP"}
_SERVER_HELPERS = {"_neo4j_memory"}
#: conftest's fixtures whose ``neo4j`` parameter carries the mark itself.
_MARKED_PARAMS = {"backend", "make_memory", "memory"}


def _reaches(node: ast.AST, tainted: set[str]) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and sub.value in _SERVER_ENV:
            return True
        if isinstance(sub, ast.Name) and sub.id in tainted:
            return True
        if (isinstance(sub, ast.keyword) and sub.arg == "backend"
                and isinstance(sub.value, ast.Constant) and sub.value.value == "neo4j"):
            return True
    return False


def _marked(node: ast.expr | list[ast.expr]) -> bool:
    nodes = node if isinstance(node, list) else [node]
    return any("mark.neo4j" in ast.unparse(n) for n in nodes)


def _server_tests(source: str) -> dict[str, bool]:
    """Each test of a module that reaches the server (directly, or through the module's
    constants, helpers and fixtures), and whether it carries the mark: its own, the module's
    ``pytestmark``, or a fixture parametrised with it."""
    tree = ast.parse(source)
    module_mark = any(
        isinstance(s, ast.Assign) and _marked(s.value)
        and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in s.targets)
        for s in tree.body)
    tainted, marked = set(_SERVER_HELPERS), set(_MARKED_PARAMS)
    grown = True
    while grown:  # a constant feeds a helper, which feeds a fixture, which feeds a fixture
        size = len(tainted) + len(marked)
        for s in tree.body:
            if isinstance(s, ast.Assign) and _reaches(s.value, tainted):
                tainted |= {t.id for t in s.targets if isinstance(t, ast.Name)}
            elif isinstance(s, ast.FunctionDef) and not s.name.startswith("test_"):
                args = {a.arg for a in s.args.args}
                if _reaches(s, tainted) or args & tainted:
                    tainted.add(s.name)
                if args & marked or _marked(s.decorator_list):
                    marked.add(s.name)
        grown = len(tainted) + len(marked) > size
    found = {}
    for s in tree.body:
        if isinstance(s, ast.FunctionDef) and s.name.startswith("test_"):
            args = {a.arg for a in s.args.args}
            if _reaches(s, tainted) or args & tainted:
                found[s.name] = module_mark or _marked(s.decorator_list) or bool(args & marked)
    return found


def test_every_test_that_reaches_neo4j_carries_the_mark() -> None:
    here = Path(__file__).resolve()
    found = {f"{path.name}::{name}": ok
             for path in sorted((ROOT / "tests").glob("test_*.py")) if path.resolve() != here
             for name, ok in _server_tests(path.read_text(encoding="utf-8")).items()}
    assert len(found) >= 20  # the scan sees the server tests (can fail if it goes blind)
    assert [name for name, ok in found.items() if not ok] == []


def test_the_mark_scan_finds_an_unmarked_server_test() -> None:
    source = """
import os
import pytest
URI = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")

def _connect():
    return Store.connect(URI)

@pytest.fixture
def target():
    return _connect()

def test_direct():
    os.environ["KG_NEO4J_HTTP"]

def test_through_a_fixture(target):
    pass

def test_through_the_bench():
    run_bench([1], backend="neo4j")

def test_through_the_contract_connector(clock):
    _neo4j_memory(clock)

@pytest.mark.neo4j
def test_marked(target):
    pass

def test_on_the_marked_backends(backend):
    if backend == "neo4j":
        _connect()

def test_unreachable_on_purpose():
    Store.connect("bolt://127.0.0.1:1")
"""
    assert _server_tests(source) == {
        "test_direct": False, "test_through_a_fixture": False, "test_through_the_bench": False,
        "test_through_the_contract_connector": False, "test_marked": True,
        "test_on_the_marked_backends": True}
    assert set(_server_tests("import pytest\npytestmark = pytest.mark.neo4j\n" + source
                             ).values()) == {True}


def test_a_notebook_that_reaches_neo4j_is_named_for_it() -> None:
    """tests/test_notebooks.py marks a notebook ``neo4j`` by its name."""
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        text = path.read_text(encoding="utf-8")
        if any(env in text for env in _SERVER_ENV) or "bolt://" in text:
            assert "neo4j" in path.name, f"{path.name} reaches Neo4j: put neo4j in its name"


def test_marked_tests_are_skipped_when_the_backends_leave_neo4j_out() -> None:
    """Not failing to connect: one of them, with no skip of its own, run as a helper runs it."""
    env = {**os.environ, "KG_TEST_BACKENDS": "embedded",
           "KG_NEO4J_URI": "bolt://127.0.0.1:1"}  # nothing listens: a connection would fail
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         "tests/test_forgetting_copies.py::"
         "test_a_synced_mirror_loses_the_entity_before_its_outbox_keys_go"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 skipped" in run.stdout
    assert "KG_TEST_BACKENDS leaves out neo4j" in run.stdout
