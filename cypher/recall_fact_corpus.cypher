// Recall: BM25's corpus statistics for facts, the scope's indexed revisions believed at `known`.
// :params {scope: 'u1', known: 1767603600000000}
MATCH (a:Assertion)
USING INDEX a:Assertion(scope)
WHERE a.scope = $scope AND a.recall_length > 0
  AND a.sys_from <= $known AND coalesce(a.sys_to, $known + 1) > $known
RETURN count(a) AS documents, coalesce(sum(a.recall_length), 0) AS tokens
