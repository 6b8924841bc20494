// Advance and return the scope's removal generation (1 for its first forget run). Counted per
// scope: one tenant's forget runs are none of another's business.
// :params {scope: 'u1'}
MERGE (m:Meta {key: 'removal_generation/' + $scope})
  ON CREATE SET m.value = 0
SET m.value = m.value + 1
RETURN m.value AS generation
