// Drop recall's episode vector index (wipe: the next embedder may have other dimensions; see
// recall_vector_drop.cypher).
// :params {}
DROP INDEX recall_episode_vectors IF EXISTS
