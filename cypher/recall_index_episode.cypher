// Recall: give a just-recorded episode its indexed text (recall_episodes full-text index)
// and its token count for BM25.
// :params {episode_id: 'ep_1', text: 'ana is vegetarian', length: 3}
MATCH (e:Episode {episode_id: $episode_id})
SET e.recall_text = $text, e.recall_length = $length
