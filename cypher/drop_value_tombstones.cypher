// Upgrade, run on connect (once per process, idempotent): drop the value-derived tombstones
// older kg-memory wrote (kind 'content', an HMAC over a forgotten value under the secret the
// database holds, so anyone who can read it could confirm a guess of the value), with their
// INVALIDATED_BY edges. Evidence tombstones (slot and instant, never the value) replace them.
// :params {}
MATCH (t:Tombstone {kind: 'content'})
DETACH DELETE t
RETURN count(*) AS dropped
