-- 011_streams: the state of the streaming SDK (docs/semantics.md, "Streams", docs/http-api.md, "Streams").
--
-- Objects: tables queen.stream_queries, queen.stream_state; function queen.stream_state_forget_partitions
-- and its trigger stream_state_forget_partitions on queen.partitions.
--
-- A stream query is registered by name per tenant and names its source and sink queues by name, not by
-- foreign key: deleting a queue keeps the registrations that read from or write to it (a queue that is
-- deleted and created again, as client set-up scripts do, continues to feed the same query). The state
-- rows of the deleted queue's partitions are removed, though: state is keyed by partition id, partition
-- ids are never reused, so those rows could never be read again. The trigger below does that when the
-- partition rows go (queen.delete_queue deletes the queue, and its partitions follow by foreign key).
--
-- Locking: POST /streams/v1/queries locks the query row FOR UPDATE (re-registration, reset);
-- POST /streams/v1/cycle locks it FOR SHARE for the whole cycle, so a reset waits for running cycles and
-- a cycle never writes state into a query being reset. A cycle takes its other locks in the canonical
-- order of 001 (sink partitions by its pushes, then the source consumer row by its ack) and the state rows
-- last, in key order; a queue delete reaches the state rows (through the trigger) only after its own
-- partition and consumer locks, so the two never wait for each other in opposite orders.
--
-- Idempotent: CREATE ... IF NOT EXISTS and CREATE OR REPLACE only.

CREATE TABLE IF NOT EXISTS queen.stream_queries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant text NOT NULL DEFAULT '',
  name text NOT NULL,
  source_queue text NOT NULL,
  -- NULL: the query writes to no queue.
  sink_queue text,
  -- Opaque to the broker: the SDK's digest of the query's definition; a different one needs reset.
  config_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant, name)
);

-- One row per (query, source partition, key). partition_id is the source partition the SDK keys its
-- state by; it carries no foreign key, so state writes never take locks on partition rows (which pushes
-- hold while they assign positions).
CREATE TABLE IF NOT EXISTS queen.stream_state (
  query_id uuid NOT NULL REFERENCES queen.stream_queries (id) ON DELETE CASCADE,
  partition_id uuid NOT NULL,
  key text NOT NULL,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (query_id, partition_id, key)
);
CREATE INDEX IF NOT EXISTS stream_state_partition_idx ON queen.stream_state (partition_id);

-- Removes the state rows of deleted partitions (see the header).
CREATE OR REPLACE FUNCTION queen.stream_state_forget_partitions()
RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM queen.stream_state s USING gone_partitions g WHERE s.partition_id = g.id;
  RETURN NULL;
END;
$fn$;

CREATE OR REPLACE TRIGGER stream_state_forget_partitions
AFTER DELETE ON queen.partitions
REFERENCING OLD TABLE AS gone_partitions
FOR EACH STATEMENT EXECUTE FUNCTION queen.stream_state_forget_partitions();
