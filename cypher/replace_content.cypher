// Forgetting: rewrite a retained episode's content with the residual copies of forgotten text
// cut out. Its payload hash stays, so a redelivery of the original is still a duplicate.
// :params {episode_id: 'ep_1', content: '[forgotten]. Please delete that from your memory.'}
MATCH (e:Episode {episode_id: $episode_id})
SET e.content = $content
