// Forgetting: rewrite the audit text of an episode's refusals that quote forgotten content.
// :params {episode_id: 'ep_1', what: 'u1.endpoint = stream.example/aurora', new_what: 'u1.endpoint = [forgotten]'}
MATCH (:Episode {episode_id: $episode_id})-[:REFUSED]->(r:Refusal {what: $what})
SET r.what = $new_what
