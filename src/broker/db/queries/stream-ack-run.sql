-- The transaction ids of the messages a stream cycle's ack with `count` covers: the message with the
-- given transaction id (chosen as queen.ack_messages chooses it: the oldest above the group's cursor,
-- else the newest) and the messages after it in position order, `count` in all.
-- $1 partition id, $2 consumer group, $3 transaction id, $4 count.
WITH k AS (
  SELECT coalesce((SELECT c.cursor_position FROM queen.consumers c
                   WHERE c.partition_id = $1 AND c.consumer_group = $2), 0) AS cursor_position
), start AS (
  SELECT m.position FROM queen.messages m CROSS JOIN k
  WHERE m.partition_id = $1 AND m.transaction_id = $3
  ORDER BY (m.position > k.cursor_position) DESC,
           CASE WHEN m.position > k.cursor_position THEN m.position ELSE -m.position END
  LIMIT 1
)
SELECT m.transaction_id FROM queen.messages m CROSS JOIN start
WHERE m.partition_id = $1 AND m.position >= start.position
ORDER BY m.position
LIMIT $4
