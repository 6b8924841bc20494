// Recall's full-text indexes, for a forget run's destination report: each must be online and
// not eventually consistent (so a deleted node left it in the deleting transaction).
// :params {}
SHOW INDEXES YIELD name, type, state, options
WHERE type = 'FULLTEXT' AND name IN ['recall_facts', 'recall_episodes']
RETURN name, state, options.indexConfig['fulltext.eventually_consistent'] AS eventual
ORDER BY name
