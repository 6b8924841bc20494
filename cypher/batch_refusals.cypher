// Batched write: the candidates the writer gate refused in a batch, attached to their episodes
// (written by the same batch), `seq` numbered per episode in the order they were refused.
// `at` is a DATETIME or ISO-8601 text (datetime() takes either; see batch_versions).
// :params {rows: [{episode_id: 'ep_1', source: 'restaurant', what: 'u1.deposit = yes', reason: 'not the owner', at: datetime('2026-02-14T20:00Z'), seq: 0}]}
UNWIND $rows AS r
MATCH (e:Episode {episode_id: r.episode_id})
CREATE (e)-[:REFUSED]->(:Refusal {
  episode_id: r.episode_id,
  source: r.source,
  what: r.what,
  reason: r.reason,
  at: datetime(r.at),
  seq: r.seq
})
