// Recall's indexes, for a forget run's destination report: each full-text index must be online
// and not eventually consistent (so a deleted node left it in the deleting transaction); the
// vector index, when an embedder has created it, must be online.
// :params {}
SHOW INDEXES YIELD name, type, state, options
WHERE (type = 'FULLTEXT' AND name IN ['recall_facts_scoped', 'recall_episodes_scoped'])
   OR (type = 'VECTOR' AND name IN ['recall_vectors', 'recall_episode_vectors'])
RETURN name, state, options.indexConfig['fulltext.eventually_consistent'] AS eventual
ORDER BY name
