// Forgetting: erase an episode, its recall text and vector (its :EpisodeVector node), every
// edge touching it and what the gate refused from it.
// Placeholder nodes left without any relationship are deleted.
// Episode ids are unique across scopes; `scope` (null: any) pins the node for a scoped run.
// :params {episode_id: 'ep_1', scope: 'u1'}
MATCH (e:Node {id: $episode_id})
WHERE $scope IS NULL OR e.scope = $scope
OPTIONAL MATCH (ev:EpisodeVector {episode_id: $episode_id})
DELETE ev
WITH DISTINCT e
OPTIONAL MATCH (e)-[:REFUSED]->(r:Refusal)
DETACH DELETE r
WITH DISTINCT e
OPTIONAL MATCH (e)-[g]-(other)
WHERE NOT type(g) IN ['REVISION_OF_FACT', 'NEEDS', 'REFUSED']
WITH e, collect(g) AS gone, collect(DISTINCT other) AS others
FOREACH (g IN gone | DELETE g)
REMOVE e:Episode
SET e.episode_id = null, e.operation_id = null, e.payload_hash = null, e.source = null,
    e.channel = null, e.content = null, e.occurred_at = null, e.recorded_at = null,
    e.recall_text = null, e.recall_length = null
WITH others + [e] AS touched
UNWIND touched AS m
WITH DISTINCT m
WHERE labels(m) = ['Node'] AND NOT EXISTS { (m)--() }
DELETE m
