// Keep a candidate the writer gate refused, for audit, attached to its episode. `seq` orders
// the refusals of one episode.
// :params {episode_id: 'ep_1', source: 'restaurant', what: 'u1.deposit = yes', reason: 'not the owner', at: datetime('2026-02-14T20:00Z')}
MATCH (e:Episode {episode_id: $episode_id})
OPTIONAL MATCH (e)-[:REFUSED]->(earlier:Refusal)
WITH e, count(earlier) AS seq
CREATE (e)-[:REFUSED]->(:Refusal {
  episode_id: $episode_id,
  source: $source,
  what: $what,
  reason: $reason,
  at: $at,
  seq: seq
})
