// Recall: every revision of one scope whose text matches any term, whatever its intervals
// (eligibility filters them afterwards). `query` requires the scope in the index's `scope`
// field and any term in `recall_text` (terms are letters and digits only, the scope a quoted
// phrase with `"` and `\` escaped), so Lucene returns this tenant's matches, not every
// tenant's; the exact scope test stays, because a phrase of the scope's words can also match a
// longer scope. No limit: a limit before eligibility could fill the list with ineligible
// matches.
// :params {query: 'scope:"u1" AND recall_text:(vegetarian OR ana)', scope: 'u1'}
CALL db.index.fulltext.queryNodes('recall_facts_scoped', $query) YIELD node
WHERE node.scope = $scope
RETURN node {.*, recall_vector: null} AS version
ORDER BY node.assertion_id, node.revision
