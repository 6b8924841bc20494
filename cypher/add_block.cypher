// "Do not collect these facts until re-enabled": written once, revocable.
// :params {block_id: 'blk_1', scope: 'acme', subject: 'j17', predicates: 'report_*', project: 'c1', created_at: datetime('2026-02-14T20:00Z')}
MERGE (b:Block {block_id: $block_id})
  ON CREATE SET b.scope = $scope,
                b.subject = $subject,
                b.predicates = $predicates,
                b.project = $project,
                b.created_at = $created_at
