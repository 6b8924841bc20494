#!/usr/bin/env python3
"""Smoke test for a running Neo4j (neo4j-local.sh or docker compose).

Needs the `neo4j` Python driver. Checks: RETURN 1, a write, CREATE CONSTRAINT / CREATE INDEX
... IF NOT EXISTS, that an equality lookup is planned as NodeIndexSeek, apoc.version(), and that
/browser/ serves the Neo4j Browser page. Cleans up what it created (label _KgSmoke).

Env: NEO4J_URI (default bolt://127.0.0.1:7687), NEO4J_PASSWORD (unset = no auth),
     NEO4J_HTTP (default http://127.0.0.1:7474).
"""

import os
import sys
import urllib.request

from neo4j import GraphDatabase

URI = os.environ.get("NEO4J_URI", "bolt://127.0.0.1:7687")
HTTP = os.environ.get("NEO4J_HTTP", "http://127.0.0.1:7474").rstrip("/")
PW = os.environ.get("NEO4J_PASSWORD")
AUTH = ("neo4j", PW) if PW else None


def operators(plan):
    out = [plan["operatorType"]]
    for child in plan.get("children", []):
        out += operators(child)
    return out


def main() -> int:
    with GraphDatabase.driver(URI, auth=AUTH) as driver:
        driver.verify_connectivity()

        def q(cypher, **params):
            records, summary, _ = driver.execute_query(cypher, params, database_="neo4j")
            return records, summary

        records, _ = q("RETURN 1 AS one")
        assert records[0]["one"] == 1
        print("RETURN 1 ->", records[0]["one"])

        records, _ = q("CREATE (n:_KgSmoke {id: randomUUID(), k: $k}) RETURN n.id AS id", k="smoke")
        print("created node id", records[0]["id"])

        q("CREATE CONSTRAINT kg_smoke_id IF NOT EXISTS FOR (n:_KgSmoke) REQUIRE n.id IS UNIQUE")
        q("CREATE INDEX kg_smoke_k IF NOT EXISTS FOR (n:_KgSmoke) ON (n.k)")
        q("CALL db.awaitIndexes(60)")
        records, _ = q(
            "SHOW INDEXES YIELD name, state WHERE name IN ['kg_smoke_id', 'kg_smoke_k'] "
            "RETURN name, state ORDER BY name"
        )
        print("indexes:", [(r["name"], r["state"]) for r in records])
        assert [r["state"] for r in records] == ["ONLINE", "ONLINE"], records

        _, summary = q("EXPLAIN MATCH (n:_KgSmoke) WHERE n.k = $k RETURN n", k="smoke")
        ops = operators(summary.plan)
        print("EXPLAIN operators:", ops)
        assert any(op.startswith("NodeIndexSeek") for op in ops), ops

        records, _ = q("RETURN apoc.version() AS v")
        print("apoc.version() ->", records[0]["v"])

        records, _ = q(
            "CALL dbms.components() YIELD versions, edition RETURN versions[0] AS v, edition"
        )
        print("server:", records[0]["v"], records[0]["edition"])

        q("MATCH (n:_KgSmoke) DETACH DELETE n")
        q("DROP CONSTRAINT kg_smoke_id IF EXISTS")
        q("DROP INDEX kg_smoke_k IF EXISTS")

    with urllib.request.urlopen(HTTP + "/browser/", timeout=10) as resp:
        body = resp.read().decode("utf-8", "replace")
        print("GET /browser/ ->", resp.status, resp.headers.get("Content-Type"))
        assert resp.status == 200, resp.status
        assert "<title>Neo4j Browser</title>" in body, body[:200]

    print("smoke test OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
