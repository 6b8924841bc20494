// Browser ready query (not run by the adapter): what forgetting one episode would remove, read
// only (the forget itself is `kg-memory forget episode:ID`, whose dry run prints the same plan).
// `episode` is an episode id; the episode record is erased. `removed`: the facts it SUPPORTS
// that no other episode supports, each with every revision (all of them are erased).
// `derived`: the records DERIVED_FROM those facts, transitively; `plan` says per record
// 'delete' (every source it rests on is removed), 'rebuild' (some sources survive: recomputed
// from them as a new revision) or 'retain' (its direct sources survive, though deeper ones go).
// `restored`: facts that a removed fact superseded or the episode invalidated; they are not
// removed but regain the valid time they lost.
// :params {episode: 'ep_1'}
MATCH (ep:Node {id: $episode})
WHERE ep:Episode
OPTIONAL MATCH (ep)-[:SUPPORTS]->(f:Fact)
WHERE NOT EXISTS { MATCH (f)<-[:SUPPORTS]-(other:Episode) WHERE other <> ep }
  AND NOT EXISTS { MATCH (f)<-[:REVISION_OF_FACT]-(:Derived) }
WITH ep, collect(f) AS gone
OPTIONAL MATCH removal = (ep)-[:SUPPORTS]->(f:Fact)<-[:REVISION_OF_FACT]-(:Assertion)
WHERE f IN gone
WITH ep, gone, collect(removal) AS removed
UNWIND CASE gone WHEN [] THEN [null] ELSE gone END AS source
OPTIONAL MATCH chain = (:Fact)-[:DERIVED_FROM*1..]->(source)
WITH ep, gone, removed, collect(chain) AS derived
WITH ep, gone, removed, derived,
     reduce(seen = [], p IN derived |
       CASE WHEN head(nodes(p)) IN seen THEN seen ELSE seen + head(nodes(p)) END) AS records
// A record goes when every DERIVED_FROM path down from it ends at a removed fact (`ends`); it is
// rebuilt when that holds for one of its direct sources (`sources`, the ends of each).
WITH ep, gone, removed, derived,
     [r IN records | {
       record: r,
       ends: [(r)-[:DERIVED_FROM*0..]->(l) WHERE NOT EXISTS { (l)-[:DERIVED_FROM]->() } | l],
       sources: [(r)-[:DERIVED_FROM]->(s) |
                 [(s)-[:DERIVED_FROM*0..]->(l) WHERE NOT EXISTS { (l)-[:DERIVED_FROM]->() } | l]]
     }] AS records
WITH ep, gone, removed, derived,
     [c IN records | {
       record: c.record,
       deleted: all(l IN c.ends WHERE l IN gone),
       touched: any(ends IN c.sources WHERE all(l IN ends WHERE l IN gone))
     }] AS checked
WITH ep, removed, derived,
     [c IN checked | {
       record: c.record.id,
       plan: CASE WHEN c.deleted THEN 'delete' WHEN c.touched THEN 'rebuild' ELSE 'retain' END
     }] AS plan,
     gone + [c IN checked WHERE c.deleted | c.record] AS deleted
UNWIND [ep] + deleted AS cause
OPTIONAL MATCH restoration = (cause)-[:SUPERSEDES|INVALIDATES]->(older:Fact)
WHERE NOT older IN deleted
RETURN ep AS episode, removed, derived, plan, collect(restoration) AS restored
