// Browser ready query (not run by the adapter): the lineage of one fact, as paths. `id` is an
// assertion id (the :Fact hub's id). `revisions`: every revision of the fact. `sources`: back to
// the episodes that SUPPORT (or INVALIDATE) it, directly or through the facts it was DERIVED_FROM,
// SUPERSEDES or is a REVISION_OF, transitively. `derivatives`: forward to the facts derived from
// it, superseding it or revising it, transitively. `activities`: the consolidation or forget runs
// that generated or used the fact or a derivative. `context`: its subject (ABOUT) and what it
// DEPENDS_ON, shown but not walked (sharing a subject is not lineage).
// :params {id: 'as_1'}
MATCH (f:Node {id: $id})
WHERE f:Fact
OPTIONAL MATCH revision = (:Assertion)-[:REVISION_OF_FACT]->(f)
WITH f, collect(revision) AS revisions
OPTIONAL MATCH source = (f)-[:DERIVED_FROM|SUPERSEDES|REVISION_OF*0..]->(:Fact)
                        <-[:SUPPORTS|INVALIDATES]-(:Episode)
WITH f, revisions, collect(source) AS sources
OPTIONAL MATCH derivative = (later:Fact)-[:DERIVED_FROM|SUPERSEDES|REVISION_OF*1..]->(f)
WITH f, revisions, sources, collect(derivative) AS derivatives, collect(DISTINCT later) AS family
UNWIND [f] + family AS member
OPTIONAL MATCH activity = (member)-[:GENERATED_BY|USED]-(:Activity)
WITH f, revisions, sources, derivatives, collect(DISTINCT activity) AS activities
OPTIONAL MATCH context = (f)-[:ABOUT|DEPENDS_ON]->()
RETURN f AS fact, revisions, sources, derivatives, activities, collect(context) AS context
