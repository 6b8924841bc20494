// Recall: store each episode's vector on its :EpisodeVector node, only if the episode is still
// of this scope and still holds the text the vector was made from (a forget meanwhile redacted
// or erased it: nothing is written).
// :params {scope: 'u1', rows: [{episode_id: 'ep_1', text: 'Ana is vegetarian', vector: [0.6, 0.8]}]}
UNWIND $rows AS row
MATCH (e:Episode {episode_id: row.episode_id})
WHERE e.scope = $scope AND e.content = row.text AND e.recall_length > 0
MERGE (v:EpisodeVector {episode_id: row.episode_id})
SET v.scope = $scope, v.recall_vector = row.vector
RETURN count(v) AS written
