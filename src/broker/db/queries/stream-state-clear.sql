-- Deletes every state row of a stream query (reset).
-- $1 query id.
DELETE FROM queen.stream_state WHERE query_id = $1
