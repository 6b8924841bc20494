"""PROV export: valid against the schemas shipped in the prov wheel, round-trips, unifies, and
passes the ordering checks the prov package does not make."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import jsonschema
import prov
import pytest
from lxml import etree
from prov.model import ProvDocument

from kg_memory import Memory
from kg_memory.services.provenance import prov_problems, qname, serialize_prov
from kg_memory.sim.cedar import load_records, replay
from kg_memory.sim.scenario import ScenarioClock

SCHEMAS = Path(prov.__file__).parent / "tests" / "schemas"


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProvDocument]:
    records = load_records()
    clock = ScenarioClock(records[0].occurred_at)
    path = tmp_path_factory.mktemp("prov") / "cedar.db"
    with Memory.open(path, clock=clock) as memory:
        replay(memory, clock, records)
        yield memory.prov()


def test_export_covers_episodes_facts_records_activities_and_agents(document: ProvDocument) -> None:
    text = serialize_prov(document, "provn")
    for needle in (
        "kgm:Episode",
        "kgm:Assertion",
        "kgm:DerivedRecord",
        "kgm:consolidation",
        "kgm:forget",
        "wasDerivedFrom",
        "wasGeneratedBy",
        "used(",
        "wasAttributedTo",
        "wasAssociatedWith",
        "prov:Revision",
        "wasInvalidatedBy",
        "kgm:Tombstone",
    ):
        assert needle in text, needle


def test_prov_json_is_valid_against_the_shipped_schema(document: ProvDocument) -> None:
    schema = json.loads((SCHEMAS / "prov-json.schema.json").read_text())
    jsonschema.validate(json.loads(serialize_prov(document, "json")), schema)


def test_prov_xml_is_valid_against_the_shipped_xsd(document: ProvDocument) -> None:
    xsd = etree.XMLSchema(etree.parse(str(SCHEMAS / "prov.xsd")))
    xml = etree.parse(io.BytesIO(serialize_prov(document, "xml").encode()))
    assert xsd.validate(xml), xsd.error_log


@pytest.mark.parametrize("fmt", ["json", "xml", "ttl"])
def test_round_trip(document: ProvDocument, fmt: str) -> None:
    options = {"format": "rdf", "rdf_format": "turtle"} if fmt == "ttl" else {"format": fmt}
    again = ProvDocument.deserialize(content=serialize_prov(document, fmt), **options)
    if fmt == "ttl":  # RDF keeps the graph, not record order or literal types

        def elements(doc: ProvDocument) -> set[tuple[str, str]]:
            return {
                (type(r).__name__, str(r.identifier)) for r in doc.get_records() if r.is_element()
            }

        assert elements(again) == elements(document)
    else:
        assert again == document


def test_unifies_and_passes_our_ordering_checks(document: ProvDocument) -> None:
    document.unified()
    assert prov_problems(document) == []


def test_the_ordering_checks_catch_what_they_claim_to() -> None:
    doc = ProvDocument()
    doc.add_namespace("kgm", "https://kg-memory.org/ns#")
    t1, t2, t3 = (datetime(2026, 1, d, tzinfo=UTC) for d in (1, 2, 3))
    doc.entity("kgm:old")
    doc.entity("kgm:new")
    doc.activity("kgm:make", t1, t1)
    doc.activity("kgm:late", t3, t3)
    doc.activity("kgm:forget", t2, t2)
    doc.wasGeneratedBy("kgm:new", "kgm:make", t1)
    doc.wasGeneratedBy("kgm:old", "kgm:late", t3)
    doc.wasGeneratedBy("kgm:old", "kgm:make", t1)
    doc.wasDerivedFrom("kgm:new", "kgm:old")
    doc.wasInvalidatedBy("kgm:new", "kgm:forget", t2)
    doc.used("kgm:late", "kgm:new", t3)
    problems = prov_problems(doc)
    assert any("2 generations" in p for p in problems)
    assert any("used after its invalidation" in p for p in problems)


def test_identifiers_are_qname_safe() -> None:
    assert qname("agent:user") == "kgm:agent_user"
    assert qname("2fast") == "kgm:n_2fast"
    assert qname("chez-lili") == "kgm:chez-lili"


def test_exports_carry_no_payload(document: ProvDocument) -> None:
    text = serialize_prov(document, "json")
    assert "concise" not in text
    assert "in review" not in text
