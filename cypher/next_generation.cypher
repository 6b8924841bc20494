// Advance and return the store's removal generation (1 for the first forget run).
// :params {}
MERGE (m:Meta {key: 'removal_generation'})
  ON CREATE SET m.value = 0
SET m.value = m.value + 1
RETURN m.value AS generation
