// Recall: BM25's corpus statistics for episodes, the scope's indexed episodes recorded by `known`.
// :params {scope: 'u1', known: datetime('2026-02-14T20:00Z')}
MATCH (e:Episode)
WHERE e.scope = $scope AND e.recall_length > 0 AND e.recorded_at <= $known
RETURN count(e) AS documents, coalesce(sum(e.recall_length), 0) AS tokens
