// Recall's re-index when its terms change: give revisions (`facts`) and episodes (`episodes`)
// their recall text and token count. A revision whose text changed loses its vector (embedded
// from that text), so the next hybrid recall of its scope embeds it again.
// :params {facts: [{assertion_id: 'as_1', revision: 1, text: 'ana diet vegetarian', length: 3}], episodes: [{episode_id: 'ep_1', text: 'ana is vegetarian', length: 3}]}
CALL {
  UNWIND $facts AS f
  MATCH (a:Assertion {assertion_id: f.assertion_id, revision: f.revision})
  WITH a, f, a.recall_text = f.text AS same
  SET a.recall_vector = CASE WHEN same THEN a.recall_vector ELSE null END,
      a.recall_text = f.text, a.recall_length = f.length
}
CALL {
  UNWIND $episodes AS r
  MATCH (e:Episode {episode_id: r.episode_id})
  SET e.recall_text = r.text, e.recall_length = r.length
}
RETURN size($facts) + size($episodes) AS written
