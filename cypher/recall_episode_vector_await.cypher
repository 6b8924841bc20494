// Wait until recall's episode vector index is online, so the next query finds what was written.
// :params {}
CALL db.awaitIndex('recall_episode_vectors', 300)
