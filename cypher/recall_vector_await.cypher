// Wait until recall's vector index is online, so the next query finds what was just written.
// :params {}
CALL db.awaitIndex('recall_vectors', 300)
