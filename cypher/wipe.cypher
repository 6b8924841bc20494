// Delete every node and relationship (a test helper; the schema stays). It commits in batches,
// so it must run in an implicit transaction: in Neo4j Browser prefix it with `:auto`.
// :params {}
MATCH (n)
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 10000 ROWS
