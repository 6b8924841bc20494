"""Neo4j Browser, end to end: the dinner study in Neo4j, read back through the Browser's own UI.

The dinner fixture goes into the Neo4j server of the contract suite (``KG_NEO4J_URI``) through
the real API, on the study's own clock. A headless Chromium (Debian's, ``/usr/bin/chromium``, or
``$KG_TEST_CHROMIUM``) driven by Playwright then opens the Browser that server serves
(``$KG_NEO4J_HTTP/browser/``), connects to Bolt with "No authentication", sets ``:params`` and
runs the as-of query exactly as ``cypher/asof_scope.cypher`` holds it: what a person following
the file header does. The rows the page shows must be the API's answer for day 40 (Ana eats
fish, the favourite is Chez Lili; "vegetarian" ended on day 30 and the restaurant's deposit
claim was refused). Screenshots go to ``artifacts/`` (git-ignored).

A second test pastes a Browser ready file's header, line by line as written, and runs the file;
a third loads ``docker/browser/kg-memory.grass`` with ``:style`` and checks the drawing; a fourth
checks the Browser ready queries (``cypher/browser_*.cypher``) against the API.

A server or browser that is not there fails these tests: nothing is skipped for want of it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
from neo4j import Driver, GraphDatabase, Record
from neo4j.graph import Path as GraphPath
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Page, expect, sync_playwright

from kg_memory import Memory
from kg_memory.domain.errors import StoreUnavailable
from kg_memory.domain.result import Fact
from kg_memory.sim.scenario import Scenario, ScenarioClock
from kg_memory.store.neo4j.cypher import load
from tests.conftest import BACKENDS, ROOT, _neo4j_memory
from tests.test_neo4j_cypher import example_params, header_commands

URI = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
HTTP = os.environ.get("KG_NEO4J_HTTP", "http://127.0.0.1:7474").rstrip("/")
CHROMIUM = Path(os.environ.get("KG_TEST_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "artifacts"
GRASS = ROOT / "docker" / "browser" / "kg-memory.grass"
#: Flags for a headless Chromium that must not reach beyond loopback.
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Milliseconds. Generous: two loaded cores run Neo4j, Chromium and the tests at once.
LOAD_TIMEOUT = 180_000
STEP_TIMEOUT = 90_000
DAY = 40

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.skipif("neo4j" not in BACKENDS, reason="KG_TEST_BACKENDS leaves out neo4j"),
]

#: Pastes text into the Browser's editor the way a person does. Typing it would let the editor
#: auto-close brackets and auto-indent lines, changing the text that runs.
_PASTE = """(area, text) => {
  const data = new DataTransfer();
  data.setData('text/plain', text);
  area.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true,
                                                  cancelable: true}));
}"""
#: Shown by Browser 5's ``:server connect`` frame once connected with auth disabled.
_CONNECTED = "You have a working connection"


# -- the data ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dinner:
    memory: Memory
    scenario: Scenario
    at: datetime  # day 40 at the read hour (a DATETIME in Neo4j)
    expected: tuple[Fact, ...]  # the API's as-of answer for day 40, both axes


@pytest.fixture(scope="module")
def dinner() -> Iterator[Dinner]:
    """fixtures/dinner in Neo4j through the real API, system times following the scenario days."""
    scenario = Scenario.load()
    clock = ScenarioClock(scenario.epoch)
    try:
        memory = _neo4j_memory(clock)
    except StoreUnavailable as exc:
        pytest.fail(f"Neo4j is not available: {exc}")
    try:
        for record in scenario.records:
            clock.now = record.occurred_at
            memory.ingest(record)
        clock.now = scenario.at(scenario.days)
        day = scenario.at(DAY)
        expected = memory.asof(day, day, scope=scenario.scope).facts
        yield Dinner(memory, scenario, day, tuple(expected))
    finally:
        memory.close()


@pytest.fixture(scope="module")
def driver() -> Iterator[Driver]:
    password = os.environ.get("NEO4J_PASSWORD")
    auth = (os.environ.get("NEO4J_USER", "neo4j"), password) if password else None
    with GraphDatabase.driver(URI, auth=auth, notifications_min_severity="OFF") as drv:
        yield drv


# -- the browser ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def page(dinner: Dinner) -> Iterator[Page]:
    """Neo4j Browser in a fresh headless Chromium profile, connected to the suite's server."""
    if not CHROMIUM.is_file():
        pytest.fail(f"no Chromium at {CHROMIUM} (apt-get install chromium, or $KG_TEST_CHROMIUM)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1500, "height": 1400})
            page = context.new_page()
            page.set_default_timeout(STEP_TIMEOUT)
            expect.set_options(timeout=STEP_TIMEOUT)
            query = urlencode({"dbms": URI, "preselectAuthMethod": "NO_AUTH"})
            try:
                page.goto(f"{HTTP}/browser/?{query}", timeout=LOAD_TIMEOUT)
            except PlaywrightError as exc:
                pytest.fail(f"no Neo4j Browser at {HTTP}/browser/: {exc}")
            _connect(page)
            yield page
        finally:
            browser.close()


def _connect(page: Page) -> None:
    """Connect the Browser to Bolt without authentication.

    Opened with ``?dbms=<bolt url>&preselectAuthMethod=NO_AUTH``, Browser 5 connects on its own;
    when it shows its connect form instead, fill that in as a person would: scheme, host:port,
    "No authentication", Connect.
    """
    connected = page.get_by_text(_CONNECTED)
    form = page.locator('[data-testid="connect"]')
    expect(connected.or_(form).first).to_be_visible(timeout=LOAD_TIMEOUT)
    if not connected.is_visible():
        bolt = urlsplit(URI)
        page.select_option('[data-testid="bolt-scheme-select"]', f"{bolt.scheme}://")
        page.fill('[data-testid="boltaddress"]', bolt.netloc.rsplit("@", 1)[-1])
        page.select_option('[data-testid="authenticationMethod"]', "NO_AUTH")
        form.click()
    expect(connected).to_be_visible(timeout=LOAD_TIMEOUT)


def _run(page: Page, command: str) -> Locator:
    """Paste ``command`` into the editor, run it, and return its result frame (newest first)."""
    editor = page.locator('[data-testid="activeEditor"]')
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    editor.locator("textarea").evaluate(_PASTE, command)
    frames = page.locator('[data-testid="frame"]')
    before = frames.count()
    page.locator('[data-testid="editor-Run"]').click()
    expect(frames).to_have_count(before + 1)
    frame = frames.first
    # The frame repeats the command with its whitespace folded: it ran as pasted, no more.
    shown = frame.locator('[data-testid="frameCommand"]')
    expect(shown).to_have_text(" ".join(command.split()), use_inner_text=True)
    return frame


def _set_params(page: Page, params: dict[str, Any]) -> None:
    """Set the parameters the way a Browser user must: ``:params {...}`` for plain values, then
    ``:param NAME => datetime('...')`` for each instant. Browser 5.26 keeps a ``datetime(...)``
    inside a ``:params`` map as the text itself (a STRING), which matches no DATETIME: only the
    ``=>`` form evaluates on the server (docs/neo4j.md says so)."""
    plain = {k: v for k, v in params.items() if not isinstance(v, datetime)}
    steps = [f":params {_cypher_map(plain)}"] + [
        f":param {key} => {_literal(value)}" for key, value in params.items()
        if isinstance(value, datetime)]
    for step in steps:
        frame = _run(page, step)
        expect(frame.locator('[data-testid="frameStatusbar"]')).to_contain_text(
            "Successfully set your parameters"
        )


def _literal(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, datetime):  # what a Browser user types for an instant
        return f"datetime('{value.astimezone(UTC).isoformat()}')"
    return str(value)


def _cypher_map(params: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{key}: {_literal(value)}" for key, value in params.items()) + "}"


def _records(frame: Locator) -> int:
    status = frame.locator('[data-testid="frameStatusbar"]')
    expect(status).to_contain_text("Started streaming")
    found = re.search(r"Started streaming (\d+) record", status.inner_text())
    assert found, status.inner_text()
    return int(found.group(1))


def _table_rows(frame: Locator) -> list[dict[str, Any]]:
    """The Table view's rows of a one-column result of maps, read back into dicts.

    Each cell is the map as indented JSON, except that string values are not escaped (a
    string with quotes inside shows them bare): read it line by line.
    """
    frame.locator('[data-testid="cypherFrameSidebarTable"]').click()
    cells = frame.locator('[data-testid="frameContents"] td[role="cell"]')
    rows = []
    for text in cells.all_inner_texts():
        row: dict[str, Any] = {}
        for line in text.splitlines():
            item = re.fullmatch(r'\s*"(\w+)": (.*?),?\s*', line)
            if item:
                raw = item.group(2)
                row[item.group(1)] = raw[1:-1] if raw.startswith('"') else json.loads(raw)
        rows.append(row)
    return rows


def _screenshot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000, f"{path} looks empty"
    return path


# -- the tests --------------------------------------------------------------------------------


def test_the_as_of_query_from_cypher_shows_day_40_in_browser(page: Page, dinner: Dinner) -> None:
    # What makes the negative checks below mean something: the store holds the old diet and
    # heard the deposit claim.
    diets = {h.version.value for h in dinner.memory.history("ana", "diet")}
    assert {"vegetarian", "eats fish"} <= diets
    assert any("deposit" in r.what for r in dinner.memory.refusals())
    assert {(f.subject, f.predicate, f.value) for f in dinner.expected} == {
        ("ana", "diet", "eats fish"),
        ("u1", "favourite", "Chez Lili"),
    }

    params = {"scope": dinner.scenario.scope, "predicate": None,
              "valid": dinner.at, "known": dinner.at}
    assert set(params) == set(example_params("asof_scope"))  # the header's parameters, all
    _set_params(page, params)
    frame = _run(page, load("asof_scope"))
    assert _records(frame) == len(dinner.expected)

    rows = _table_rows(frame)
    shown = {(r["subject"], r["predicate"], r["value"], r["assertion_id"],
              r["revision"]) for r in rows}
    assert shown == {(f.subject, f.predicate, f.value, f.assertion_id, f.revision)
                     for f in dinner.expected}
    result = frame.locator('[data-testid="frameContents"]').inner_text()
    assert "eats fish" in result
    assert "Chez Lili" in result
    assert "vegetarian" not in result
    assert "deposit" not in result

    # The Text view fits both records on screen for the picture.
    frame.locator('[data-testid="cypherFrameSidebarAscii"]').click()
    expect(frame.locator('[data-testid="frameContents"]')).to_contain_text("Chez Lili")
    _screenshot(page, "browser-asof.png")


def test_a_browser_ready_header_runs_as_pasted(
    page: Page, dinner: Dinner, driver: Driver
) -> None:
    """browser_asof's header, each line pasted as it is (``:params`` with the plain values,
    then a ``:param NAME => datetime(...)`` per instant), then the file: the day-40 snapshot.
    With the instants inside the map, Browser 5.26 kept them as text and this found nothing."""
    params = example_params("browser_asof")
    assert (params["scope"], params["valid"]) == (dinner.scenario.scope, dinner.at)
    for command in header_commands("browser_asof"):
        frame = _run(page, command)
        expect(frame.locator('[data-testid="frameStatusbar"]')).to_contain_text(
            "Successfully set your parameters")
    with driver.session() as session:
        want = session.run(load("browser_asof"), params).data()
    assert sorted((r["assertion_id"], r["revision_number"]) for r in want) == sorted(
        (f.assertion_id, f.revision) for f in dinner.expected)
    frame = _run(page, load("browser_asof"))
    # Paths open as a drawing, whose frame has no status bar: the Table view counts records.
    frame.locator('[data-testid="cypherFrameSidebarTable"]').click()
    assert _records(frame) == len(dinner.expected) > 0


def _grass() -> dict[str, dict[str, str]]:
    """The style file's rules, read the way Browser reads GraSS (no comments, no colons)."""
    rules = {}
    text = GRASS.read_text("utf-8")
    for selector, body in re.findall(r"([\w.]+)\s*\{((?:'[^']*'|[^'}])*)\}", text):
        props = (part.split(":") for part in body.split(";") if part.strip())
        rules[selector] = {k.strip(): v.strip().strip("'") for k, v in props}
    return rules


def test_the_style_file_draws_kinds_and_closed_revisions(page: Page, dinner: Dinner) -> None:
    rules = _grass()
    assert "/*" not in GRASS.read_text("utf-8")  # Browser's GraSS reader knows no comments
    style = _run(page, ":style " + GRASS.read_text("utf-8"))
    echoed = style.locator('[data-testid="frameContents"]')
    for selector in rules:  # Browser parsed every rule of the file
        expect(echoed).to_contain_text(selector + " {")

    older = next(v for v in dinner.memory.store.history("ana", "diet") if v.value == "vegetarian")
    _set_params(page, {"id": older.assertion_id})
    frame = _run(page, load("browser_lineage"))
    # A new frame opens in the view last chosen (Text, above): ask for the graph. Its overview
    # says "Displaying N nodes, M relationships." once drawn.
    frame.locator('[data-testid="cypherFrameSidebarVisualization"]').click()
    expect(frame.get_by_text(re.compile(r"Displaying \d+ nodes"))).to_be_visible()

    def drawn(fill: str, diameter: str) -> Locator:
        radius = f"{float(diameter.removesuffix('px')) / 2:g}"
        return frame.locator(f'svg g.node circle.b-outline[fill="{fill}"][r="{radius}"]')

    current, closed = rules["node.Current.Stated"], rules["node.Stated"]
    assert current["color"] != closed["color"]
    assert rules["node.Current"]["diameter"] != rules["node.Assertion"]["diameter"]
    # diet = "vegetarian" #2 (believed, its valid time ended on day 30) and #1 (closed by it).
    expect(drawn(current["color"], rules["node.Current"]["diameter"])).to_have_count(1)
    expect(drawn(closed["color"], rules["node.Assertion"]["diameter"])).to_have_count(1)
    episode = rules["node.Episode"]
    expect(drawn(episode["color"], episode["diameter"])).to_have_count(1)
    captions = frame.locator("svg g.node text.caption")
    expect(captions.filter(has_text="Ana (ana)")).to_have_count(1)
    _screenshot(page, "browser-lineage.png")


def _single(driver: Driver, name: str, **params: Any) -> Record:
    """The one row of a ready query, run with the parameters its header names."""
    assert set(params) == set(example_params(name))
    with driver.session() as session:
        return session.run(load(name), params).single(strict=True)


def _ids(paths: list[GraphPath], at: int) -> set[str]:
    """The ``id`` of the node at position ``at`` of each path (0 first, -1 last)."""
    return {str(path.nodes[at]["id"]) for path in paths}


def test_the_ready_queries_agree_with_the_api(driver: Driver, dinner: Dinner) -> None:
    memory, scenario = dinner.memory, dinner.scenario
    with driver.session() as session:
        for day in range(scenario.days + 1):
            at = scenario.at(day)
            want = memory.asof(at, at, scope=scenario.scope).facts
            rows = session.run(load("browser_asof"), scope=scenario.scope, subject=None,
                               valid=at, known=at).data()
            assert sorted((r["assertion_id"], r["revision_number"]) for r in rows) == sorted(
                (f.assertion_id, f.revision) for f in want
            ), day
        current = session.run(load("browser_current"), scope=scenario.scope, subject="ana",
                              valid=None).data()
        episode_ids = [r["id"] for r in session.run("MATCH (e:Episode) RETURN e.id AS id")]
    assert sorted(r["value"] for r in current) == ["eats fish", "vegetarian"]

    # The new diet's lineage reaches the episode that said it and, through SUPERSEDES, the one
    # that said "vegetarian".
    newer = next(f for f in dinner.expected if f.predicate == "diet")
    older = next(v for v in memory.store.history("ana", "diet") if v.value == "vegetarian")
    support = memory.store.supports([newer.assertion_id, older.assertion_id])
    lineage = _single(driver, "browser_lineage", id=newer.assertion_id)
    assert _ids(lineage["sources"], -1) == {s.episode_id for ss in support.values() for s in ss}
    assert _ids(lineage["revisions"], -1) == {newer.assertion_id}
    assert len(lineage["revisions"]) == len(memory.store.versions([newer.assertion_id]))

    # What the forget query shows is what a dry run of `forget episode:ID` plans.
    assert len(episode_ids) == len(scenario.records)
    for episode_id in episode_ids:
        plan = memory.forget(f"episode:{episode_id}@{scenario.scope}", dry_run=True).plan
        row = _single(driver, "browser_forget_episode", episode=episode_id)
        removed = {str(path.nodes[1]["id"]) for path in row["removed"]}
        delete = removed | {p["record"] for p in row["plan"] if p["plan"] == "delete"}
        rebuild = {p["record"] for p in row["plan"] if p["plan"] == "rebuild"}
        assert (delete, rebuild, _ids(row["restored"], -1)) == (
            set(plan.delete), set(plan.rebuild), set(plan.restore)
        ), episode_id
