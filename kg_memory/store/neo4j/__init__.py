"""The Neo4j adapter: the store protocol over Bolt, every query a file in ``cypher/``, and the
mirror that projects an embedded store into Neo4j."""

from kg_memory.store.neo4j.store import SCHEMA_VERSION, Neo4jStore

__all__ = ["SCHEMA_VERSION", "Neo4jStore"]
