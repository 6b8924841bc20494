// Recall's backfill of a store written before recall: up to `limit` episodes with content that
// were never given recall text (redacted ones have none to give).
// :params {limit: 1000}
MATCH (e:Episode)
WHERE e.recall_length IS NULL AND e.recall_text IS NULL AND e.content <> ''
RETURN e.episode_id AS episode_id, e.content AS content
ORDER BY e.episode_id
LIMIT $limit
