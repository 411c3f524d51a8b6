-- 013_encryption: the PostgreSQL side of encryption at rest (docs/semantics.md, "Encryption at rest"). PostgreSQL never
-- sees the key; it sees key ids (the `kid` of a stored ciphertext) and is_encrypted flags.
--
-- Objects: functions queen.require_payload_key, queen.dead_letter_undecryptable.
--
-- Locking: dead_letter_undecryptable locks the consumer row of (partition, group) FOR UPDATE, as the ack
-- path does; callers pass rows ordered by partition id.

-- A pop's guard (message-pop.sql filters its rows through it): true for an encrypted payload this broker can
-- decrypt; raises SQLSTATE QK001 when the broker has no key (p_kid NULL) or the payload names another key id.
-- Raised inside the pop statement, the error rolls the whole statement back, so a pop that cannot decrypt
-- leases nothing, auto-acks nothing, records no subscription and counts no failure (docs/semantics.md, "Pops without a
-- usable key"). A payload without a string kid passes: it is a corrupted ciphertext, which the broker dead-letters.
CREATE OR REPLACE FUNCTION queen.require_payload_key(p_payload jsonb, p_kid text)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $fn$
BEGIN
  IF p_kid IS NULL
     OR (jsonb_typeof(p_payload -> 'kid') = 'string' AND p_payload ->> 'kid' <> p_kid) THEN
    RAISE EXCEPTION 'encryption key unavailable' USING ERRCODE = 'QK001';
  END IF;
  RETURN true;
END;
$fn$;

-- Dead-letters, for one group, a message the broker popped but could not decrypt although the key id
-- matched (a tampered or corrupted ciphertext: "decryption failed: authentication tag mismatch"). The
-- message is settled for the group with its failure count so far (the cursor moves over it when it was
-- the first open position), and the group's live lease is released when nothing else delivered under it is
-- open. Works after an autoAck pop too (the message is settled already; it gains its DLQ entry). False when
-- the message is gone (deleted meanwhile).
CREATE OR REPLACE FUNCTION queen.dead_letter_undecryptable(p_partition_id uuid, p_transaction_id text,
                                                           p_message_id uuid, p_group text, p_error text)
RETURNS boolean LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_position bigint;
  v_failures integer;
BEGIN
  PERFORM 1 FROM queen.consumers k
  WHERE k.partition_id = p_partition_id AND k.consumer_group = p_group
  FOR UPDATE;
  SELECT m.position INTO v_position FROM queen.messages m
  WHERE m.partition_id = p_partition_id AND m.transaction_id = p_transaction_id AND m.id = p_message_id;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  SELECT s.failures INTO v_failures FROM queen.message_states s
  WHERE s.partition_id = p_partition_id AND s.consumer_group = p_group AND s.position = v_position;
  PERFORM queen.dead_letter(p_partition_id, v_position, p_group, p_error, coalesce(v_failures, 0));
  PERFORM queen.settle_forward(p_partition_id, p_group);
  PERFORM queen.release_idle_lease(p_partition_id, p_group);
  RETURN true;
END;
$fn$;
