// Recall's native vector index over each revision's `recall_vector` (cosine), created when the
// first vector of a store is written: its dimensions are the configured embedder's. The rest
// of the schema is in schema.cypher; this statement is its own file because it needs a value.
// :params {dimensions: 256}
CREATE VECTOR INDEX recall_vectors IF NOT EXISTS
FOR (a:Assertion) ON a.recall_vector
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
