-- 001_core_tables: the tables of the Queen data model (docs/semantics.md, "Storage").
--
-- Objects: schema queen; tables queues, partitions, messages, consumers, message_states, subscriptions,
-- dead_letters, dedup_entries, traces, trace_names, system_state.
--
-- Locking assumptions: pushes lock partition rows (FOR UPDATE) to take positions, so a partition row is
-- the serialisation point of its writers; pops and acks lock consumer rows (partition, group) and never
-- the partition row, so consumers never wait for producers. Canonical lock order: queues by name, then
-- partitions by (queue name, partition name), then consumer rows by (partition id, group).
--
-- The hot tables (messages, consumers, message_states) carry no foreign keys: a foreign-key check is a
-- trigger per inserted row, and deleting a queue is done explicitly by queen.delete_queue(), which
-- removes everything under it in one transaction. Idempotent: every statement is IF NOT EXISTS.

CREATE SCHEMA IF NOT EXISTS queen;

CREATE TABLE IF NOT EXISTS queen.queues (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant text NOT NULL DEFAULT '',
  name text NOT NULL,
  namespace text NOT NULL DEFAULT '',
  task text NOT NULL DEFAULT '',
  lease_time_seconds integer NOT NULL DEFAULT 300,
  retry_limit integer NOT NULL DEFAULT 3,
  retry_delay_ms integer NOT NULL DEFAULT 1000,
  priority integer NOT NULL DEFAULT 0,
  delayed_processing_seconds integer NOT NULL DEFAULT 0,
  window_buffer_seconds integer NOT NULL DEFAULT 0,
  max_size bigint NOT NULL DEFAULT 0,
  max_partitions integer NOT NULL DEFAULT 0,
  dedup_window_seconds integer NOT NULL DEFAULT 3600,
  dead_letter_queue boolean NOT NULL DEFAULT false,
  retention_enabled boolean NOT NULL DEFAULT false,
  retention_seconds bigint NOT NULL DEFAULT 0,
  completed_retention_seconds bigint NOT NULL DEFAULT 0,
  max_wait_time_seconds bigint NOT NULL DEFAULT 0,
  encryption_enabled boolean NOT NULL DEFAULT false,
  -- Exact count of stored messages; maintained only while max_size > 0 (docs/semantics.md, "Capacity caps").
  stored_messages bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant, name)
);

-- next_position is the partition's position counter; rows are updated by every push, so leave room for
-- HOT updates (no indexed column changes on the hot path).
CREATE TABLE IF NOT EXISTS queen.partitions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  queue_id uuid NOT NULL REFERENCES queen.queues (id) ON DELETE CASCADE,
  name text NOT NULL,
  next_position bigint NOT NULL DEFAULT 1,
  newest_created_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_activity_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (queue_id, name)
) WITH (fillfactor = 50);

CREATE TABLE IF NOT EXISTS queen.messages (
  partition_id uuid NOT NULL,
  position bigint NOT NULL,
  id uuid NOT NULL,
  transaction_id text NOT NULL,
  payload jsonb,
  is_encrypted boolean NOT NULL DEFAULT false,
  trace_id uuid,
  producer_sub text,
  created_at timestamptz NOT NULL,
  -- When the broker accepted the push (differs from created_at for spool replays); the dedup window is
  -- measured from it (docs/semantics.md, "Transaction ids and deduplication").
  accepted_at timestamptz NOT NULL,
  PRIMARY KEY (partition_id, position)
);
-- Dedup and acks look messages up by transaction id within their partition. Not unique: after the dedup
-- window the same transaction id is a new message.
CREATE INDEX IF NOT EXISTS messages_transaction_idx ON queen.messages (partition_id, transaction_id);

-- One row per (partition, consumer group): the cursor and the lease (docs/semantics.md, "Leases" and "The contiguous
-- cursor").
CREATE TABLE IF NOT EXISTS queen.consumers (
  partition_id uuid NOT NULL,
  consumer_group text NOT NULL,
  queue_id uuid NOT NULL,
  -- Every existing message at or below this position is settled for the group.
  cursor_position bigint NOT NULL DEFAULT 0,
  -- Subscription start not yet passed: messages created before it count as settled.
  start_at timestamptz,
  lease_id uuid,
  lease_expires_at timestamptz,
  -- Highest position delivered under the live lease; the lease covers the unsettled messages in
  -- (cursor_position, lease_to].
  lease_to bigint,
  last_served_at timestamptz,
  last_consumed_at timestamptz,
  total_consumed bigint NOT NULL DEFAULT 0,
  batches_consumed bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (partition_id, consumer_group)
) WITH (fillfactor = 50);
CREATE INDEX IF NOT EXISTS consumers_lease_idx ON queen.consumers (lease_id) WHERE lease_id IS NOT NULL;
-- Leases by expiry, for the reclaim cycle (queen.reclaim_expired_leases): it reads the expired ones alone. In
-- primary-key order it walked every consumer row of every queue once a second to find a few (issue 22).
CREATE INDEX IF NOT EXISTS consumers_lease_expiry_idx ON queen.consumers (lease_expires_at) WHERE lease_id IS NOT NULL;
-- The rows of a queue, or of one group on a queue, and the group's last serve on a queue (namespace pops
-- order queues by it) without reading every row. One index rather than one per use: every pop and ack
-- updates a consumer row without HOT (lease_id is indexed), so each index costs an insert per update
-- (bench/README.md, history: the former (consumer_group, queue_id) and (queue_id) indexes).
CREATE INDEX IF NOT EXISTS consumers_served_idx ON queen.consumers (queue_id, consumer_group, last_served_at);
DROP INDEX IF EXISTS queen.consumers_group_idx;
DROP INDEX IF EXISTS queen.consumers_queue_idx;
DROP INDEX IF EXISTS queen.consumers_queue_group_idx;

-- Sparse per-message state of a group above its cursor: out-of-order settlements, failure counts,
-- retry times. Rows at or below the cursor are deleted as the cursor passes them.
CREATE TABLE IF NOT EXISTS queen.message_states (
  partition_id uuid NOT NULL,
  consumer_group text NOT NULL,
  position bigint NOT NULL,
  settled boolean NOT NULL DEFAULT false,
  failures integer NOT NULL DEFAULT 0,
  retry_at timestamptz,
  last_error text,
  -- The lease under which the message last received an outcome (failed, retry); a lease is released
  -- once every message it delivered has one.
  outcome_lease_id uuid,
  PRIMARY KEY (partition_id, consumer_group, position)
);

CREATE TABLE IF NOT EXISTS queen.subscriptions (
  queue_id uuid NOT NULL REFERENCES queen.queues (id) ON DELETE CASCADE,
  consumer_group text NOT NULL,
  mode text NOT NULL,
  -- NULL: from the beginning.
  start_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (queue_id, consumer_group)
);

CREATE TABLE IF NOT EXISTS queen.dead_letters (
  partition_id uuid NOT NULL,
  position bigint NOT NULL,
  consumer_group text NOT NULL,
  queue_id uuid NOT NULL,
  message_id uuid NOT NULL,
  transaction_id text NOT NULL,
  error text,
  failures integer NOT NULL DEFAULT 0,
  failed_at timestamptz NOT NULL DEFAULT now(),
  -- Payload copy, kept only for queues with deadLetterQueue: true, so the entry outlives its message.
  payload jsonb,
  has_payload_copy boolean NOT NULL DEFAULT false,
  is_encrypted boolean NOT NULL DEFAULT false,
  trace_id uuid,
  producer_sub text,
  message_created_at timestamptz NOT NULL,
  PRIMARY KEY (partition_id, position, consumer_group)
);
CREATE INDEX IF NOT EXISTS dead_letters_queue_idx ON queen.dead_letters (queue_id, failed_at DESC);
CREATE INDEX IF NOT EXISTS dead_letters_txn_idx ON queen.dead_letters (partition_id, transaction_id);

-- Dedup entries of messages deleted while still inside their queue's dedup window (retention, message
-- delete, queue clear). Live messages are their own dedup entries (messages_transaction_idx), which
-- saves one insert per pushed message.
CREATE TABLE IF NOT EXISTS queen.dedup_entries (
  partition_id uuid NOT NULL,
  transaction_id text NOT NULL,
  message_id uuid NOT NULL,
  accepted_at timestamptz NOT NULL,
  PRIMARY KEY (partition_id, transaction_id)
);

CREATE TABLE IF NOT EXISTS queen.traces (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  partition_id uuid NOT NULL,
  transaction_id text NOT NULL,
  message_id uuid,
  consumer_group text NOT NULL,
  event_type text NOT NULL,
  data jsonb NOT NULL,
  worker_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS traces_message_idx ON queen.traces (partition_id, transaction_id, created_at);

CREATE TABLE IF NOT EXISTS queen.trace_names (
  trace_id uuid NOT NULL REFERENCES queen.traces (id) ON DELETE CASCADE,
  trace_name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (trace_id, trace_name)
);
CREATE INDEX IF NOT EXISTS trace_names_name_idx ON queen.trace_names (trace_name, created_at DESC);

-- Cluster-wide flags (maintenance modes), read by every replica.
CREATE TABLE IF NOT EXISTS queen.system_state (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO queen.system_state (key, value) VALUES
  ('maintenance', 'false'::jsonb),
  ('pop_maintenance', 'false'::jsonb)
ON CONFLICT (key) DO NOTHING;
