// Recall: BM25's corpus statistics for episodes, the scope's indexed episodes recorded by `known`.
// The hint keeps the seek on the scope: left to itself the planner seeks recorded_at, every
// tenant's episodes recorded by `known` (a read that grows with the whole store).
// :params {scope: 'u1', known: datetime('2026-02-14T20:00Z')}
MATCH (e:Episode)
USING INDEX SEEK e:Episode(scope, channel)
WHERE e.scope = $scope AND e.channel IS NOT NULL AND e.recall_length > 0
  AND e.recorded_at <= $known
RETURN count(e) AS documents, coalesce(sum(e.recall_length), 0) AS tokens
