// Forgetting: keep an episode's node for the facts it still supports but drop its content,
// payload hash, recall text (so the full-text index drops it), vector and refusals, and every edge
// from it to the forgotten assertions (one UNWIND).
// :params {scope: 'u1', episode_id: 'ep_1', supports_to_drop: ['as_1', 'as_2']}
MATCH (e:Node {scope: $scope, id: $episode_id})
OPTIONAL MATCH (ev:EpisodeVector {episode_id: $episode_id})
DELETE ev
WITH DISTINCT e
OPTIONAL MATCH (e)-[:REFUSED]->(r:Refusal)
DETACH DELETE r
WITH DISTINCT e
FOREACH (_ IN CASE WHEN e:Episode THEN [1] ELSE [] END |
  SET e.content = '', e.payload_hash = '', e.recall_text = null, e.recall_length = null)
WITH e
UNWIND $supports_to_drop AS dst
MATCH (e)-[g]->(d:Node {scope: $scope, id: dst})
WHERE NOT type(g) IN ['REVISION_OF_FACT', 'NEEDS', 'REFUSED']
DELETE g
WITH DISTINCT d
WHERE labels(d) = ['Node'] AND NOT EXISTS { (d)--() }
DELETE d
