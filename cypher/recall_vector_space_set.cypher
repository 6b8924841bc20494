// Recall's vector space: set on the first vector written, kept afterwards (the returned value
// is the store's; the caller refuses a different one).
// :params {space: 'hashing-trigram/256'}
MERGE (m:Meta {key: 'recall_vector_space'})
ON CREATE SET m.value = $space
RETURN m.value AS space
