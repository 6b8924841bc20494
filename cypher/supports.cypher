// The episodes supporting each assertion, as recorded by `known` (null: everything recorded).
// :params {ids: ['as_1'], known: null}
UNWIND $ids AS id
MATCH (:Fact {assertion_id: id})<-[g:SUPPORTS]-(e:Episode)
WHERE $known IS NULL OR g.since <= $known
RETURN id, e.episode_id AS episode_id, e.source AS source, e.occurred_at AS occurred_at,
       e.content AS content
ORDER BY e.occurred_at, e.episode_id
