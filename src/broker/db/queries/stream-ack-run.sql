-- The transaction ids of the messages a stream cycle's ack with `count` covers. The streams SDK names the
-- LAST message of its batch and the batch's size: the run is the `count` messages ending at the named one
-- (chosen as queen.ack_messages chooses it: the oldest above the group's cursor, else the newest),
-- unsettled ones first, so a batch with gaps of settled messages is covered whole and a resend of a
-- committed cycle covers the same (already settled) messages. Reads only positions between the lower of
-- the cursor and (named - count) and the named one.
-- $1 partition id, $2 consumer group, $3 transaction id, $4 count.
WITH k AS (
  SELECT coalesce((SELECT c.cursor_position FROM queen.consumers c
                   WHERE c.partition_id = $1 AND c.consumer_group = $2), 0) AS cursor_position
), named AS (
  SELECT m.position FROM queen.messages m CROSS JOIN k
  WHERE m.partition_id = $1 AND m.transaction_id = $3
  ORDER BY (m.position > k.cursor_position) DESC,
           CASE WHEN m.position > k.cursor_position THEN m.position ELSE -m.position END
  LIMIT 1
)
SELECT r.transaction_id FROM (
  SELECT m.transaction_id, m.position FROM queen.messages m CROSS JOIN k CROSS JOIN named n
  WHERE m.partition_id = $1 AND m.position <= n.position AND m.position > least(k.cursor_position, n.position - $4)
  ORDER BY (m.position > k.cursor_position AND NOT EXISTS (
              SELECT 1 FROM queen.message_states s
              WHERE s.partition_id = $1 AND s.consumer_group = $2 AND s.position = m.position AND s.settled)) DESC,
           m.position DESC
  LIMIT $4
) r
ORDER BY r.position
