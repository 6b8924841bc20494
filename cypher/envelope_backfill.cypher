// The gate's decision on each episode's envelope, for a store written before it was stored with
// the episode: every :Episode the audit holds an `envelope ...` :Refusal for is marked refused
// (who really sent it was not recorded then: `sent_by` stays null). Runs on connect, once per
// store: the :Meta mark `envelope_backfilled` records that it ran. Returns how many it marked.
// :params {}
MERGE (m:Meta {key: 'envelope_backfilled'})
WITH m, m.value IS NULL AS pending
SET m.value = 'yes'
WITH pending
OPTIONAL MATCH (e:Episode)-[:REFUSED]->(r:Refusal)
WHERE pending AND e.envelope IS NULL AND r.what STARTS WITH 'envelope '
WITH DISTINCT e
SET e.envelope = 'refused'
RETURN count(e) AS marked
