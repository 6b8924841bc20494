// Recall: every revision of one scope whose text matches any term, whatever its intervals
// (eligibility filters them afterwards), and BM25's corpus statistics: the scope's indexed
// revisions believed at `known`. One record (`versions`, `documents`, `tokens`): one round
// trip, and the driver's cost is per record. `query` requires the scope in the index's `scope`
// field and any term in `recall_text` (terms are letters and digits only, the scope a quoted
// phrase with `"` and `\` escaped), so Lucene returns this tenant's matches, not every
// tenant's; the exact scope test stays, because a phrase of the scope's words can also match a
// longer scope. No limit: a limit before eligibility could fill the list with ineligible
// matches.
// :params {query: 'scope:"u1" AND recall_text:(vegetarian OR ana)', scope: 'u1', known: datetime('2026-02-14T20:00Z')}
CALL () {
  CALL db.index.fulltext.queryNodes('recall_facts_scoped', $query) YIELD node
  WHERE node.scope = $scope
  WITH node
  ORDER BY node.assertion_id, node.revision
  RETURN collect(node {.*, recall_vector: null}) AS versions
}
CALL () {
  MATCH (a:Assertion)
  USING INDEX SEEK a:Assertion(scope)
  WHERE a.scope = $scope AND a.recall_length > 0
    AND a.sys_from <= $known AND (a.sys_to IS NULL OR a.sys_to > $known)
  RETURN count(a) AS documents, coalesce(sum(a.recall_length), 0) AS tokens
}
RETURN versions, documents, tokens
