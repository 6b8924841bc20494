// Batched write: end the system interval of revisions stored before the batch, once each (the
// only change a stored revision ever gets, as close_version). `closed` counts the revisions
// that were still open: fewer than the rows means the store changed under the batch.
// `now` is a DATETIME or ISO-8601 text (datetime() takes either; see batch_versions).
// :params {rows: [{assertion_id: 'as_1', revision: 1, now: datetime('2026-02-14T20:00:00.000001Z'), closed_by: 'ep_2', close_reason: 'superseded'}]}
UNWIND $rows AS r
MATCH (a:Assertion {assertion_id: r.assertion_id, revision: r.revision})
WHERE a.sys_to IS NULL
SET a.sys_to = datetime(r.now), a.closed_by = r.closed_by, a.close_reason = r.close_reason
REMOVE a:Current
RETURN count(a) AS closed
