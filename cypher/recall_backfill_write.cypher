// Recall's backfill: give revisions (`facts`) and episodes (`episodes`) their recall text and
// token count; length 0 marks one with no text, so it is not visited again.
// :params {facts: [{assertion_id: 'as_1', revision: 1, text: 'ana diet vegetarian', length: 3}], episodes: [{episode_id: 'ep_1', text: 'ana is vegetarian', length: 3}]}
CALL {
  UNWIND $facts AS f
  MATCH (a:Assertion {assertion_id: f.assertion_id, revision: f.revision})
  SET a.recall_text = f.text, a.recall_length = f.length
}
CALL {
  UNWIND $episodes AS r
  MATCH (e:Episode {episode_id: r.episode_id})
  SET e.recall_text = r.text, e.recall_length = r.length
}
RETURN size($facts) + size($episodes) AS written
