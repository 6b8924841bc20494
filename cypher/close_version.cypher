// End the system interval of one open revision at `now`, once: the only change a stored
// revision ever gets (it also stops being :Current). A revision written in this same
// transaction (sys_from = now) was never visible to anyone, so it is deleted instead: an
// empty system interval would be a lie. No row back: the revision was not open (the caller
// reports a concurrent change). `fresh` says whether it was deleted.
// :params {assertion_id: 'as_1', revision: 1, now: datetime('2026-02-14T20:00:00.000001Z'), closed_by: 'ep_2', close_reason: 'superseded'}
MATCH (a:Assertion {assertion_id: $assertion_id, revision: $revision})
WHERE a.sys_to IS NULL
WITH a, a.sys_from = $now AS fresh
FOREACH (_ IN CASE WHEN fresh THEN [1] ELSE [] END | DETACH DELETE a)
FOREACH (_ IN CASE WHEN fresh THEN [] ELSE [1] END |
  SET a.sys_to = $now, a.closed_by = $closed_by, a.close_reason = $close_reason
  REMOVE a:Current)
RETURN fresh
