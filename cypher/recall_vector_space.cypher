// Recall's vector space (embedder name/dimensions) of this store, null before its first vector.
// :params {}
OPTIONAL MATCH (m:Meta {key: 'recall_vector_space'})
RETURN m.value AS space
