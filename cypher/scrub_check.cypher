// After a forget run: what still remains of the ids it erased and the episodes it redacted.
// Every count must be 0 (`vectors`: episode vectors of erased or redacted episodes). Erased ids may survive only as a bare :Node that another fact NEEDS.
// `entities` are [scope, entity_id] pairs: an id erased in one scope may live on in another.
// :params {erased: ['ep_1', 'as_1'], entities: [['u1', 'R1']], redacted: ['ep_2']}
OPTIONAL MATCH (n:Node)
WHERE n.id IN $erased AND labels(n) <> ['Node']
WITH count(n) AS plain
OPTIONAL MATCH (n:Entity)
WHERE [n.scope, n.entity_id] IN $entities
WITH plain, count(n) AS entities
WITH plain + entities AS nodes
OPTIONAL MATCH (a:Assertion)
WHERE a.assertion_id IN $erased
WITH nodes, count(a) AS revisions
OPTIONAL MATCH (r:Refusal)
WHERE r.episode_id IN $erased + $redacted
WITH nodes, revisions, count(r) AS refusals
OPTIONAL MATCH (v:EpisodeVector)
WHERE v.episode_id IN $erased + $redacted
WITH nodes, revisions, refusals, count(v) AS vectors
OPTIONAL MATCH (e:Episode)
WHERE e.episode_id IN $redacted
  AND (e.content <> '' OR e.payload_hash <> '' OR e.recall_text IS NOT NULL)
RETURN nodes, revisions, refusals, vectors, count(e) AS unredacted
