-- A pop met ciphertexts that failed authentication: dead-letter each for the group and settle it
-- (queen.dead_letter_undecryptable, schema 013). Pass the messages ordered by partition id.
-- $1 partition ids, $2 transaction ids, $3 message ids, $4 errors (parallel arrays), $5 group.
SELECT queen.dead_letter_undecryptable(x.partition_id, x.transaction_id, x.message_id, $5, x.error) AS dead_lettered
FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[]) WITH ORDINALITY AS x(partition_id, transaction_id,
                                                                                  message_id, error, n)
ORDER BY x.n
