"""Issue 10, secrets and injection: data is never code, and credentials never leave the process.

* Values shaped like SQL, Cypher and JSON are stored and returned verbatim on both backends.
* No query is built by formatting data into it: a static scan of every adapter's execute/run
  call, and a run-time check that no datum reaches a query's text (only its parameters).
* Neo4j credentials come from the environment or a private file outside the repository, and
  never show up in logs, errors, locations or exports.
"""

from __future__ import annotations

import ast
import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kg_memory import Memory, StoreUnavailable
from kg_memory.cli import app
from kg_memory.store.sqlite import driver
from tests.conftest import BACKENDS, ROOT, ManualClock, day, episode, fact

SQL = "x'); DROP TABLE versions; -- \" OR 1=1 --"
CYPHER = "x'}) MATCH (n) DETACH DELETE n // ${evil} `tick` \\' }]->("
JSON = '{"kind": "stated", "value": "\\"}], \\"writer\\": \\"user\\"", "x": [1, null]}'
FORMAT = "%s %(x)s {0} {value} ? ?1 :name $1 \\x00 é 漢字 \u2028"
PAYLOADS = {"sql": SQL, "cypher": CYPHER, "json": JSON, "format": FORMAT}


@pytest.mark.parametrize("kind", sorted(PAYLOADS))
def test_hostile_looking_values_are_stored_and_returned_verbatim(
    memory: Memory, clock: ManualClock, kind: str
) -> None:
    text = PAYLOADS[kind]
    memory.ingest(episode("canary", "user", day(0), assertions=[fact("ana", "diet", "veg")]))
    memory.ingest(episode(f"op {text}", "user", day(1), content=text, scope=f"u1{text}",
                          entities=[{"entity_id": f"e{text}", "name": text}],
                          assertions=[fact(f"s{text}", text, text, qualifiers={
                              "project": text, "exceptions": [text]})]))
    memory.ingest(episode(f"third {text}", "restaurant", day(1), content=text,
                          assertions=[fact(f"s{text}", text, f"not {text}")]))
    clock.now = day(2)

    [served] = memory.asof(subject=f"s{text}").facts
    assert (served.subject, served.predicate, served.value, served.scope) == (
        f"s{text}", text, text, f"u1{text}")
    assert served.qualifiers.project == text
    assert served.qualifiers.exceptions == (text,)
    assert [h.version.value for h in memory.history(f"s{text}", text)] == [text]
    [episode_row] = memory.store.episodes([served.supported_by[0].episode_id])
    assert (episode_row.content, episode_row.operation_id) == (text, f"op {text}")
    assert [e.name for e in memory.entities(f"u1{text}") if e.entity_id == f"e{text}"] == [text]
    refused = [r for r in memory.refusals() if r.source == "restaurant"]
    assert [r.what for r in refused] == [f"s{text}.{text} = not {text}"]
    # Nothing was executed: the canary fact and every table are still there.
    assert memory.asof(subject="ana").values() == ["veg"]


# -- no query is built from data: static scan ---------------------------------------------------

STORE = ROOT / "kg_memory" / "store"
#: Calls that hand a query text to a database.
QUERY_CALLS = {"execute", "executemany", "executescript", "run", "_rows", "_read", "_write"}
#: What an f-string inside a query may interpolate: SQL fragments fixed in the source (column
#: lists, "?, ?, ?" placeholder runs whose length is a count, table and column names from a
#: constant tuple, and clauses chosen among constants). Anything else is data, and data goes in
#: parameters. Extending this set is a reviewed decision, never a fix for a failing scan.
SAFE_FRAGMENTS = {
    "VERSION_COLUMNS",
    "marks",
    "_marks(ids)",
    "' AND '.join(where)",
    "table",
    "column",
    "VERSION_COLUMNS_OF_V",  # rows: VERSION_COLUMNS, each prefixed with the alias v
}
#: Functions that assemble a query text from fixed fragments and take no data: reviewed like
#: SAFE_FRAGMENTS. asof._statement's arguments are four booleans (which filters a lookup has),
#: so the text has at most 16 shapes; the values go in parameters.
SAFE_BUILDERS = {"_statement"}


def _adapter_files() -> list[Path]:
    return sorted(p for p in STORE.rglob("*.py"))


def _unsafe(node: ast.expr, assigned: dict[str, list[ast.expr]]) -> list[str]:
    """Why the query text ``node`` may carry data (empty when it cannot)."""
    if isinstance(node, ast.Constant):
        return []
    if isinstance(node, ast.JoinedStr):
        return [f"f-string interpolates {ast.unparse(v.value)}" for v in node.values
                if isinstance(v, ast.FormattedValue) and ast.unparse(v.value) not in SAFE_FRAGMENTS]
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Mod):
            return [f"%-formatting: {ast.unparse(node)}"]
        return _unsafe(node.left, assigned) + _unsafe(node.right, assigned)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "format":
            return [f".format(): {ast.unparse(node)}"]
        if isinstance(func, ast.Name) and func.id == "load":
            return []  # the text of a cypher/*.cypher file
        if isinstance(func, ast.Attribute) and func.attr == "read_text":
            return []  # schema.sql beside the adapter
        if isinstance(func, ast.Name) and func.id in SAFE_BUILDERS:
            return []
        return [f"query text from a call: {ast.unparse(node)}"]
    if isinstance(node, ast.Name):
        values = assigned.get(node.id)
        if values is None:
            return []  # a parameter of the enclosing function: checked at its call sites
        return [why for value in values for why in _unsafe(value, assigned)]
    return [f"query text from {type(node).__name__}: {ast.unparse(node)}"]


def _query_problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    problems: list[str] = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef):
            continue
        assigned: dict[str, list[ast.expr]] = {}
        loop_names: set[str] = set()
        for node in ast.walk(function):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        assigned.setdefault(target.id, []).append(node.value)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                assigned.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, ast.For) and isinstance(node.target, ast.Name):
                loop_names.add(node.target.id)
        for name in loop_names:
            # A query text taken from a loop (``for statement in statements("schema")``).
            assigned.setdefault(name, [])
        for node in ast.walk(function):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in QUERY_CALLS and node.args):
                for why in _unsafe(node.args[0], assigned):
                    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                    problems.append(f"{where}:{node.lineno}: {why}")
    return problems


def test_no_adapter_builds_a_query_by_formatting_data() -> None:
    files = _adapter_files()
    assert any("sqlite" in str(p) for p in files)
    assert any("neo4j" in str(p) for p in files)
    problems = [p for path in files for p in _query_problems(path)]
    assert problems == []


def test_the_scan_catches_formatting(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "def a(conn, subject):\n"
        "    conn.execute(f\"SELECT * FROM versions WHERE subject = '{subject}'\")\n"
        "def b(conn, subject):\n"
        "    sql = 'SELECT * FROM versions WHERE subject = ' + repr(subject)\n"
        "    conn.execute(sql)\n"
        "def c(tx, name):\n"
        "    tx.run('MATCH (n {id: \"%s\"}) RETURN n' % name)\n"
        "def d(tx, name):\n"
        "    tx.run('MATCH (n {{id: \"{}\"}}) RETURN n'.format(name))\n"
    )
    problems = _query_problems(bad)
    assert len(problems) == 4, problems


# -- no query is built from data: at run time ----------------------------------------------------

MARK = "Zq9-canary-7Yx"


def _workload(memory: Memory, clock: ManualClock) -> None:
    """Every path that writes or reads data, each carrying the marker in every field."""
    memory.ingest(episode(f"op{MARK}", "user", day(0), content=MARK, scope=f"sc{MARK}",
                          entities=[{"entity_id": f"e{MARK}", "name": MARK}],
                          assertions=[fact(f"s{MARK}", f"p{MARK}", MARK)]))
    memory.ingest(episode(f"op2{MARK}", "restaurant", day(1), content=MARK, scope=f"sc{MARK}",
                          assertions=[fact(f"s{MARK}", f"p{MARK}", MARK)]))
    clock.now = day(2)
    memory.asof(subject=f"s{MARK}", predicate=f"p{MARK}", scope=f"sc{MARK}")
    memory.history(f"s{MARK}", f"p{MARK}", scope=f"sc{MARK}")
    memory.refusals(f"sc{MARK}")
    memory.lineage(f"e{MARK}")
    memory.forget(f"entity:e{MARK}@sc{MARK}", dry_run=True)
    memory.scoped(f"sc{MARK}").lineage(f"e{MARK}")


class _SpyConnection:
    """A real SQLite connection that records every SQL text it is given."""

    def __init__(self, conn: driver.Connection, seen: list[str]) -> None:
        self._conn, self._seen = conn, seen

    def execute(self, sql: str, *args: Any) -> driver.Cursor:
        self._seen.append(sql)
        return self._conn.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> driver.Cursor:
        self._seen.append(sql)
        return self._conn.executemany(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


@pytest.fixture
def spied_queries(backend: str, memory: Memory, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    if backend == "neo4j":
        from neo4j import Session, Transaction

        for cls in (Session, Transaction):
            real = cls.run

            def run(self: Any, query: Any, *args: Any, _real: Any = real, **kw: Any) -> Any:
                seen.append(str(query))
                return _real(self, query, *args, **kw)

            monkeypatch.setattr(cls, "run", run)
    else:
        store: Any = memory.store
        # This thread's connection (the embedded store has one per thread).
        session = store._connections.session()
        monkeypatch.setattr(session, "conn", _SpyConnection(session.conn, seen))
    return seen


def test_no_datum_reaches_a_query_text(
    memory: Memory, clock: ManualClock, spied_queries: list[str], backend: str
) -> None:
    _workload(memory, clock)
    assert len(spied_queries) > 10  # the spy saw the queries
    assert [q for q in spied_queries if MARK in q] == []
    if backend == "neo4j":
        from kg_memory.store.neo4j.cypher import load, names, statements

        files = {load(n) for n in names()} | set(statements("schema"))
        assert [q for q in spied_queries if q not in files] == []


# -- credentials ----------------------------------------------------------------------------------

SECRET = "S3cret-Canary-Pw-91"


@pytest.fixture
def password_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_PASSWORD", SECRET)
    monkeypatch.delenv("KG_NEO4J_CONFIG", raising=False)
    return


def _no_secret(*texts: str) -> None:
    for text in texts:
        assert SECRET not in text


def _chain(exc: BaseException | None) -> str:
    parts: list[str] = []
    while exc is not None:
        parts.append(f"{type(exc).__name__}: {exc}")
        exc = exc.__cause__ or exc.__context__
    return "\n".join(parts)


@pytest.mark.parametrize("uri", [
    "bolt://127.0.0.1:1", f"bolt://neo4j:{SECRET}@127.0.0.1:1", f"neo4j://neo4j:{SECRET}@[::1",
])
def test_no_credential_in_connection_errors_or_logs(
    password_env: None, caplog: pytest.LogCaptureFixture, uri: str
) -> None:
    from kg_memory.store.neo4j import Neo4jStore

    caplog.set_level(logging.DEBUG)
    with pytest.raises(StoreUnavailable) as caught:
        Neo4jStore.connect(uri)
    _no_secret(str(caught.value), _chain(caught.value), caplog.text)


def test_credentials_file_must_be_private_and_outside_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kg_memory.store.neo4j.auth import credentials

    monkeypatch.delenv("NEO4J_PASSWORD", raising=False)
    monkeypatch.delenv("NEO4J_USER", raising=False)
    private = tmp_path / "neo4j.json"
    private.write_text(json.dumps({"user": "kg", "password": SECRET}))
    private.chmod(0o600)
    monkeypatch.setenv("KG_NEO4J_CONFIG", str(private))
    assert credentials(None, None) == ("kg", SECRET)

    private.chmod(0o644)
    with pytest.raises(StoreUnavailable, match="readable by others") as caught:
        credentials(None, None)
    _no_secret(str(caught.value))

    inside = ROOT / "fixtures"  # any path in the source tree is refused before it is read
    monkeypatch.setenv("KG_NEO4J_CONFIG", str(inside / "neo4j.json"))
    with pytest.raises(StoreUnavailable, match="inside the kg-memory source tree"):
        credentials(None, None)

    private.write_text("{" + SECRET)  # malformed: the error must not quote it
    private.chmod(0o600)
    monkeypatch.setenv("KG_NEO4J_CONFIG", str(private))
    with pytest.raises(StoreUnavailable) as caught:
        credentials(None, None)
    _no_secret(str(caught.value), _chain(caught.value))


def test_no_password_is_committed_to_the_repository() -> None:
    """Credentials live in the environment: no tracked file assigns one a literal value."""
    offenders = []
    for path in [*ROOT.glob("kg_memory/**/*.py"), *ROOT.glob("docker/**/*"), *ROOT.glob("*.md"),
                 *ROOT.glob("tests/*.py"), *ROOT.glob(".ci/*")]:
        if not path.is_file() or path.suffix in (".jar", ".png") or "target" in path.parts:
            continue
        for number, line in enumerate(path.read_text(errors="ignore").splitlines(), 1):
            squashed = line.replace(" ", "")
            if ("NEO4J_PASSWORD=" in squashed and "${" not in squashed and "'choose" not in line
                    and "os.environ" not in line and "monkeypatch" not in line
                    and squashed.split("NEO4J_PASSWORD=", 1)[1][:1] not in ("", "`", ")", '"')):
                offenders.append(f"{path.relative_to(ROOT)}:{number}")
    assert offenders == []


@pytest.mark.neo4j
@pytest.mark.skipif("neo4j" not in BACKENDS, reason="needs the Neo4j server")
def test_no_credential_in_locations_exports_or_cli_output(
    password_env: None, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """On the test server (auth off, so any credentials are accepted) with a password both in
    the environment and in the URI: nothing kg-memory prints, exports or logs carries it."""
    from kg_memory.store.neo4j import Neo4jStore

    caplog.set_level(logging.DEBUG)
    base = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
    uri = base.replace("://", f"://neo4j:{SECRET}@", 1)
    clock = ManualClock()
    with Memory(Neo4jStore.connect(uri, clock=clock), clock=clock) as memory:
        memory.store.wipe()  # type: ignore[attr-defined]
        memory.ingest(episode("a", "user", day(0), assertions=[fact("ana", "diet", "veg")]))
        clock.now = day(1)
        exports = [str(memory.prov().serialize(format=f)) for f in ("json", "provn")]
        texts = [str(memory.store.location), repr(memory.store), memory.asof().model_dump_json(),
                 *exports]
    runner = CliRunner(env={"COLUMNS": "200", "NEO4J_PASSWORD": SECRET})
    outputs = [runner.invoke(app, [*args, "--store", uri, "--scope", "u1"]).output for args in (
        ["asof", "--json"], ["history", "ana"], ["refusals", "--json"], ["prov", "--all"])]
    _no_secret(*texts, *outputs, caplog.text)
    assert all("ana" in o or "[]" in o or "entity" in o for o in outputs), outputs
