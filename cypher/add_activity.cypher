// Record (or replace) a prov:Activity the store ran itself: a consolidation or a forget run.
// `detail` is content-free JSON: counts and ids.
// :params {activity_id: 'act_forget_1', scope: 'u1', type: 'forget', agent: 'kg-memory-forget', started_at: datetime('2026-02-14T20:00Z'), ended_at: datetime('2026-02-14T20:00Z'), status: 'complete', detail: '{}'}
MERGE (a:Node {scope: $scope, id: $activity_id})
SET a:Activity,
    a.activity_id = $activity_id,
    a.type = $type,
    a.agent = $agent,
    a.started_at = $started_at,
    a.ended_at = $ended_at,
    a.status = $status,
    a.detail = $detail
