// Drop recall's vector index (wipe: a wiped database may next hold another embedder's vectors,
// of other dimensions, and Neo4j keeps an index when its nodes are deleted). The next vector
// written creates it again (recall_vector_index.cypher).
// :params {}
DROP INDEX recall_vectors IF EXISTS
