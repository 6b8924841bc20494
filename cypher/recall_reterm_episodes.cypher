// Recall's re-index when its terms change: up to `limit` indexed episodes after `after` in id
// order, with their content.
// :params {after: '', limit: 1000}
MATCH (e:Episode)
WHERE e.episode_id > $after AND e.recall_text IS NOT NULL
RETURN e.episode_id AS episode_id, e.content AS content
ORDER BY e.episode_id
LIMIT $limit
