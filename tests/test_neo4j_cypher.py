"""The Neo4j adapter's Cypher: one file per query, parameters only, runnable as documented,
and the as-of lookup served by an index.

The checks on the files themselves need no server. The rest runs against the Neo4j server the
contract suite uses (``KG_NEO4J_URI``, default ``bolt://127.0.0.1:7687``) and is deselected with
it when ``KG_TEST_BACKENDS`` leaves out ``neo4j``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j import Driver, GraphDatabase

from kg_memory.domain.errors import StoreUnavailable
from kg_memory.resources import path as resource_path
from kg_memory.store.neo4j import Neo4jStore
from kg_memory.store.neo4j.cypher import load, names, statements
from tests.conftest import BACKENDS, ROOT

CYPHER_DIR = resource_path("cypher")
URI = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
#: Files that are not a single query run in an explicit transaction.
SCRIPTS = {"schema", "wipe"}
#: Queries that need recall's vector index, which exists only once an embedder made it (with
#: that embedder's dimensions): run against one made at the examples' dimensions.
VECTOR_INDEXED = {"recall_vector_query", "recall_vector_await", "recall_episode_vector_query",
                  "recall_episode_vector_await"}
ADAPTER = sorted((ROOT / "kg_memory" / "store" / "neo4j").glob("*.py"))
#: Browser ready queries (``browser_*.cypher``): for people in Neo4j Browser, never run by the
#: adapter. They meet every other check here: $parameters only, header :params, runnable.
BROWSER = {n for n in names() if n.startswith("browser_")}

needs_server = pytest.mark.skipif(
    "neo4j" not in BACKENDS, reason="KG_TEST_BACKENDS leaves out neo4j"
)

_PARAM_LINE = re.compile(r"^// :params (\{.*\})\s*$", re.MULTILINE)
#: ``// :param NAME => EXPRESSION``: one parameter the Browser evaluates on the server, the
#: form an instant needs there (Browser 5.26 keeps ``datetime(...)`` in a ``:params`` map as
#: the text itself).
_ONE_PARAM_LINE = re.compile(r"^// :param (\w+) => (.*?)\s*$", re.MULTILINE)
_COMMENT = re.compile(r"^\s*//.*$", re.MULTILINE)
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'")
_PARAMETER = re.compile(r"\$(\w+)")


def _body(name: str) -> str:
    """The query without its comments and string literals."""
    return _STRING.sub("''", _COMMENT.sub("", load(name)))


# -- a reader for the `:params {...}` example in each file's header -------------------------------

_TOKEN = re.compile(
    r"\s*(datetime\('[^']*'\)|'(?:[^'\\]|\\.)*'|-?\d+(?:\.\d+)?|[A-Za-z_]\w*|[{}\[\]:,])")


def _tokens(text: str) -> Iterator[str]:
    position = 0
    while position < len(text.rstrip()):
        match = _TOKEN.match(text, position)
        assert match, f"cannot read {text[position:]!r}"
        yield match.group(1)
        position = match.end()


def _literal(tokens: list[str]) -> Any:
    """A Cypher literal (map, list, string, number, boolean, null) as a Python value."""
    token = tokens.pop(0)
    if token == "{":
        result: dict[str, Any] = {}
        while tokens[0] != "}":
            key = tokens.pop(0)
            assert tokens.pop(0) == ":"
            result[key] = _literal(tokens)
            if tokens[0] == ",":
                tokens.pop(0)
        tokens.pop(0)
        return result
    if token == "[":
        items = []
        while tokens[0] != "]":
            items.append(_literal(tokens))
            if tokens[0] == ",":
                tokens.pop(0)
        tokens.pop(0)
        return items
    if token.startswith("datetime('"):
        # What Browser's datetime('...') gives: an instant in UTC (Python reads the 'Z').
        return datetime.fromisoformat(token[len("datetime('"):-2]).astimezone(UTC)
    if token.startswith("'"):
        return re.sub(r"\\(.)", r"\1", token[1:-1])
    if token in ("null", "true", "false"):
        return {"null": None, "true": True, "false": False}[token]
    return float(token) if "." in token else int(token)


def _read(text: str, what: str) -> Any:
    tokens = list(_tokens(text))
    value = _literal(tokens)
    assert tokens == [], f"{what}: trailing text after the value"
    return value


def example_params(name: str) -> dict[str, Any]:
    """The parameters of the file's header: its ``// :params {...}`` line, then each
    ``// :param NAME => VALUE`` line after it (a name is given once)."""
    [line] = _PARAM_LINE.findall(load(name))
    value = _read(line, f"{name}: :params")
    assert isinstance(value, dict)
    for key, expression in _ONE_PARAM_LINE.findall(load(name)):
        assert key not in value, f"{name}: ${key} is given twice"
        value[key] = _read(expression, f"{name}: :param {key}")
    return value


def header_commands(name: str) -> list[str]:
    """The header's parameter lines as a Browser user pastes them, one command each, in order."""
    return [line.removeprefix("// ") for line in load(name).splitlines()
            if _PARAM_LINE.match(line) or _ONE_PARAM_LINE.match(line)]


# -- the files, without a server -------------------------------------------------------------


def test_the_loader_reads_every_file_of_the_cypher_folder() -> None:
    files = sorted(CYPHER_DIR.glob("*.cypher"))
    assert CYPHER_DIR == ROOT / "cypher"
    assert [p.stem for p in files] == names()
    for path in files:
        assert load(path.stem) == path.read_text(encoding="utf-8").strip()
        assert load(path.stem) is load(path.stem)  # read once
    with pytest.raises(ValueError, match="not a query name"):
        load("../pyproject")
    with pytest.raises(FileNotFoundError):
        load("no_such_query")


def test_every_query_the_adapter_runs_is_a_file_and_every_file_is_used() -> None:
    source = "\n".join(p.read_text(encoding="utf-8") for p in ADAPTER)
    used = set(re.findall(r'(?:_rows|_read|_versions|\b_?run)\(\s*"(\w+)"', source))
    used |= set(re.findall(r'run_query\(\s*\w+,\s*"(\w+)"', source))
    used |= set(re.findall(r'statements\("(\w+)"\)', source))
    # The mirror batches named queries as (name, params) steps of one transaction.
    used |= set(re.findall(r'\(\s*"(\w+)",\s*(?:\{|row\)|_versions\()', source))
    assert used == set(names()) - BROWSER


def test_the_browser_ready_queries_are_a_separate_documented_set() -> None:
    assert BROWSER, "no cypher/browser_*.cypher"
    for name in BROWSER:
        assert load(name).startswith("// Browser ready query (not run by the adapter)"), name


def test_the_adapter_builds_no_cypher_from_strings() -> None:
    for path in ADAPTER:
        text = path.read_text(encoding="utf-8")
        for pattern in (r"\.run\(\s*f[\"']", r"\.run\(\s*[\"']", r"\.format\(", r"%\s*\("):
            assert not re.search(pattern, text), f"{path.name}: {pattern}"


@pytest.mark.parametrize("name", names())
def test_a_file_is_one_query_with_parameters_only(name: str) -> None:
    body = _body(name)
    # No Python format fields or %-formatting: values only ever arrive as $parameters.
    assert not re.search(r"\{\s*\w*\s*\}", body), "a format field like {name}"
    assert not re.search(r"%[sdr(]", body)
    if name != "schema":
        assert ";" not in body, "one query per file"
    # The header's example names exactly the parameters the query uses.
    assert set(example_params(name)) == set(_PARAMETER.findall(body))


@pytest.mark.parametrize("name", names())
def test_an_example_gives_instants_as_browser_datetimes(name: str) -> None:
    """A Browser user pastes the header: an instant is datetime('...'), never the integer
    microseconds schema 2 stored (13 or more digits)."""
    [line] = _PARAM_LINE.findall(load(name))
    assert not re.search(r"\b\d{13,}\b", _STRING.sub("''", line)), line
    for value in _walk(example_params(name)):
        if isinstance(value, datetime):
            assert value.tzinfo is UTC


@pytest.mark.parametrize("name", sorted(BROWSER))
def test_a_browser_ready_header_runs_as_pasted(name: str) -> None:
    """Browser 5.26 keeps a datetime(...) inside a :params map as its text, a STRING that
    matches no DATETIME (the query then finds nothing, with no error): in a Browser ready file
    the map holds the plain values and each instant has its own ``:param NAME => datetime(...)``
    line, after the map (``:params`` replaces every parameter, ``:param`` sets one)."""
    commands = header_commands(name)
    assert commands[0].startswith(":params {"), commands
    assert all(c.startswith(":param ") for c in commands[1:]), commands
    [line] = _PARAM_LINE.findall(load(name))
    assert "datetime(" not in _STRING.sub("''", line), f"{name}: an instant in the map"
    instants = {k for k, v in example_params(name).items() if isinstance(v, datetime)}
    assert instants == {k for k, _ in _ONE_PARAM_LINE.findall(load(name))}


def test_the_header_reader_takes_one_parameter_lines() -> None:
    """The reader the checks above rest on: what a header says, and that it can fail."""
    assert _read("{a: 'x', b: [1, 2.5], c: null}", "map") == {"a": "x", "b": [1, 2.5], "c": None}
    assert _read("datetime('2026-02-14T20:00Z')", "one") == datetime(2026, 2, 14, 20, tzinfo=UTC)
    with pytest.raises(AssertionError, match="cannot read"):  # an expression, not a value
        _read("datetime('2026-02-14T20:00Z') + duration('P1D')", "one")
    with pytest.raises(AssertionError, match="trailing"):
        _read("'a' 'b'", "one")
    assert _ONE_PARAM_LINE.findall("// :param valid => datetime('2026-02-14T20:00Z')\n") == [
        ("valid", "datetime('2026-02-14T20:00Z')")]


def _walk(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def test_the_schema_file_splits_into_idempotent_statements() -> None:
    parts = statements("schema")
    assert len(parts) >= 10
    for part in parts:
        assert ("IF NOT EXISTS" in part or part.startswith("CALL db.awaitIndexes")
                or (part.startswith(("DROP CONSTRAINT", "DROP INDEX"))
                    and part.endswith("IF EXISTS")))
        assert "//" not in part


def test_the_location_never_shows_a_password() -> None:
    from kg_memory.store.neo4j.auth import public_uri as _public_uri

    assert _public_uri("bolt://neo4j:s3cret@db.example:7687") == "bolt://db.example:7687"
    assert _public_uri("bolt://127.0.0.1:7687") == "bolt://127.0.0.1:7687"


def test_an_unreachable_server_is_unavailable_not_empty() -> None:
    with pytest.raises(StoreUnavailable, match=re.escape("127.0.0.1:1")):
        Neo4jStore.connect("bolt://127.0.0.1:1", password="not-a-real-one")


# -- against the server -----------------------------------------------------------------------


@pytest.fixture
def driver() -> Iterator[Driver]:
    """A plain driver on an empty store whose schema is in place."""
    with Neo4jStore.connect(URI) as store:
        store.wipe()  # the examples must not meet data an earlier test left (op-1 exists...)
    password = os.environ.get("NEO4J_PASSWORD")
    auth = (os.environ.get("NEO4J_USER", "neo4j"), password) if password else None
    with GraphDatabase.driver(URI, auth=auth, notifications_min_severity="OFF") as drv:
        yield drv


def _operators(plan: dict[str, Any]) -> list[tuple[str, str]]:
    """(operator, details) of every step of a plan, root first."""
    found = [(str(plan["operatorType"]).split("@")[0], str(plan["args"].get("Details", "")))]
    for child in plan.get("children", []):
        found.extend(_operators(child))
    return found


@pytest.mark.neo4j
@needs_server
def test_an_activity_by_its_id_is_a_seek_of_its_unique_constraint(driver: Driver) -> None:
    """Rule: the lineage lookup of one activity reads that activity, not every activity of
    every tenant filtered afterwards."""
    with driver.session() as session:
        summary = session.run("EXPLAIN " + load("activity"), example_params("activity")).consume()
    assert summary.plan is not None
    steps = _operators(summary.plan)
    plan = "\n".join(f"{op}: {details}" for op, details in steps)
    assert any(op.startswith("NodeUniqueIndexSeek") and "Activity(activity_id)" in details
               for op, details in steps), plan
    assert not {"NodeByLabelScan", "AllNodesScan", "NodeIndexScan"} & {op for op, _ in steps}


#: The files that name an index (``USING INDEX``): each is planned as that index's seek.
HINTED = sorted(n for n in names() if n not in SCRIPTS and "USING INDEX" in _body(n))


@pytest.mark.parametrize("name", HINTED)
def test_an_index_hint_names_a_seek(name: str) -> None:
    """Rule: a hint says SEEK. A plain ``USING INDEX`` lets the planner scan the whole index
    (every tenant's entries, filtered afterwards), which CI's Neo4j did for `scope_documents`
    and `scope_refusals` once a whole suite had moved the index statistics (session 21)."""
    hints = re.findall(r"USING INDEX(?: SEEK)?", _body(name))
    assert hints, name
    assert all(h == "USING INDEX SEEK" for h in hints), name


@pytest.mark.parametrize("name", HINTED)
@pytest.mark.neo4j
@needs_server
def test_a_hinted_query_is_planned_without_a_scan(driver: Driver, name: str) -> None:
    with driver.session() as session:
        summary = session.run("EXPLAIN " + load(name), example_params(name)).consume()
    assert summary.plan is not None
    steps = _operators(summary.plan)
    plan = "\n".join(f"{op}: {details}" for op, details in steps)
    assert any("IndexSeek" in op for op, _ in steps), plan
    assert not {"NodeByLabelScan", "AllNodesScan", "NodeIndexScan"} & {op for op, _ in steps}, plan


@pytest.mark.parametrize(
    ("name", "variable", "constraint"),
    [
        ("batch_live_slots", "b", "Assertion(assertion_id, revision)"),
        ("batch_edges", "x", "Node(scope, id)"),
    ],
)
@pytest.mark.neo4j
@needs_server
def test_a_batch_lookup_by_id_is_a_seek_whatever_the_statistics(
        driver: Driver, name: str, variable: str, constraint: str) -> None:
    """Rule: planned on a new or wiped store, whose index statistics describe empty indexes
    while nodes are being written, these lookups stay seeks (their SEEK hints): the planner
    scanned the whole index for every row instead (docs/benchmarks.md, session 19)."""
    with driver.session() as session:
        summary = session.run("EXPLAIN " + load(name), example_params(name)).consume()
    assert summary.plan is not None
    steps = _operators(summary.plan)
    plan = "\n".join(f"{op}: {details}" for op, details in steps)
    assert any(op.startswith("NodeUniqueIndexSeek") and f"{variable}:{constraint}" in details
               for op, details in steps), plan
    assert not {"NodeByLabelScan", "AllNodesScan", "NodeIndexScan"} & {op for op, _ in steps}


@pytest.mark.parametrize(
    ("name", "index"),
    [
        ("asof", "Assertion(subject, predicate)"),
        ("asof_subject", "Assertion(subject)"),
        ("asof_scope", "Assertion(scope)"),
        ("asof_rows", "Assertion(subject, predicate)"),
        ("asof_rows_subject", "Assertion(subject)"),
    ],
)
@pytest.mark.neo4j
@needs_server
def test_asof_is_served_by_an_index_seek(driver: Driver, name: str, index: str) -> None:
    with driver.session() as session:
        summary = session.run("EXPLAIN " + load(name), example_params(name)).consume()
    assert summary.plan is not None
    steps = _operators(summary.plan)
    seeks = [details for op, details in steps if op.startswith("NodeIndexSeek")]
    plan = "\n".join(f"{op}: {details}" for op, details in steps)  # whole, for a failing run
    assert seeks, plan
    assert all(f"RANGE INDEX a:{index}" in seek for seek in seeks), steps
    # A scan of the index (every scope, filtered afterwards) is what CI once got from an
    # "IS NULL OR" the planner split into a Union: it grows with every tenant's revisions.
    assert not {"NodeByLabelScan", "AllNodesScan", "NodeIndexScan", "Union"} & {
        op for op, _ in steps}, plan


@pytest.mark.neo4j
@needs_server
def test_the_schema_creates_its_constraints_idempotently(driver: Driver) -> None:
    with driver.session() as session:
        for _ in range(2):  # a second run changes nothing and raises nothing
            for statement in statements("schema"):
                session.run(statement).consume()
        constraints = {r["name"] for r in session.run("SHOW CONSTRAINTS YIELD name")}
        indexes = {r["name"] for r in session.run("SHOW INDEXES YIELD name, state")}
    assert {"node_scope_id", "episode_scope_operation", "entity_scope_id", "revision_id",
            "tombstone_key"} <= constraints
    # Schema 1's constraints keyed tenants' ids globally; they must not survive an upgrade.
    assert not {"node_id", "episode_operation", "entity_id", "document_key"} & constraints
    assert {"assertion_slot", "assertion_subject", "assertion_scope", "assertion_id"} <= indexes
    # Instants are DATETIMEs with range indexes of their own.
    assert {"assertion_sys_from", "assertion_valid_from", "episode_recorded_at"} <= indexes


@pytest.mark.neo4j
@needs_server
@pytest.mark.parametrize("name", [n for n in names() if n not in SCRIPTS | VECTOR_INDEXED])
def test_each_query_runs_as_documented(driver: Driver, name: str) -> None:
    """What a Browser user does: set the header's :params, run the file. Rolled back after."""
    with driver.session() as session, session.begin_transaction() as tx:
        tx.run(load(name), example_params(name)).consume()
        tx.rollback()


@pytest.mark.neo4j
@needs_server
@pytest.mark.parametrize("name", sorted(VECTOR_INDEXED))
def test_each_vector_index_query_runs_as_documented(driver: Driver, name: str) -> None:
    """The same, with recall's vector index made at the examples' 2 dimensions, then dropped
    (the next hybrid recall makes it again at its embedder's)."""
    indexes = ("recall_vectors", "recall_episode_vectors")
    with driver.session() as session:
        for index in indexes:
            session.run(f"DROP INDEX {index} IF EXISTS").consume()
        session.run(load("recall_vector_index"), {"dimensions": 2}).consume()
        session.run(load("recall_episode_vector_index"), {"dimensions": 2}).consume()
        try:
            session.run(load("recall_vector_await")).consume()
            session.run(load("recall_episode_vector_await")).consume()
            with session.begin_transaction() as tx:
                tx.run(load(name), example_params(name)).consume()
                tx.rollback()
        finally:
            for index in indexes:
                session.run(f"DROP INDEX {index} IF EXISTS").consume()

