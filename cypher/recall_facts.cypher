// Recall: every revision of one scope whose text matches any term, whatever its intervals
// (eligibility filters them afterwards). `query` is the terms joined by OR; terms are letters
// and digits only, so they carry no Lucene syntax. No limit: a limit before eligibility could
// fill the list with ineligible matches.
// :params {query: 'vegetarian OR ana', scope: 'u1'}
CALL db.index.fulltext.queryNodes('recall_facts', $query) YIELD node
WHERE node.scope = $scope
RETURN node {.*} AS version
ORDER BY node.assertion_id, node.revision
