// Episodes by id, in the order they were recorded.
// :params {ids: ['ep_1']}
MATCH (e:Episode)
WHERE e.episode_id IN $ids
RETURN e {.*} AS episode
ORDER BY e.recorded_at, e.episode_id
