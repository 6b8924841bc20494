// As-of snapshot of the whole store (`predicate` optional, null for any): what held at `valid`,
// as believed at `known`. Reads every revision: use asof_scope or asof for anything large.
// :params {predicate: null, valid: 1767603600000000, known: 1767603600000000}
// An open end (null sys_to / valid_to) counts as later than any instant.
MATCH (a:Assertion)
WHERE ($predicate IS NULL OR a.predicate = $predicate)
  AND a.sys_from <= $known AND coalesce(a.sys_to, $known + 1) > $known
  AND a.valid_from <= $valid AND coalesce(a.valid_to, $valid + 1) > $valid
RETURN a {.*} AS version
ORDER BY a.scope, a.subject, a.predicate, a.project, a.valid_from
