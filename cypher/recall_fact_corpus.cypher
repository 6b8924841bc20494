// Recall: BM25's corpus statistics for facts, the scope's indexed revisions believed at `known`.
// :params {scope: 'u1', known: datetime('2026-02-14T20:00Z')}
MATCH (a:Assertion)
USING INDEX SEEK a:Assertion(scope)
WHERE a.scope = $scope AND a.recall_length > 0
  AND a.sys_from <= $known AND (a.sys_to IS NULL OR a.sys_to > $known)
RETURN count(a) AS documents, coalesce(sum(a.recall_length), 0) AS tokens
