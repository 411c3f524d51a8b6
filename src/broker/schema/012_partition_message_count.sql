-- 012_partition_message_count: an exact count of stored messages per partition, so status counters and
-- the stats snapshot no longer count every message of a partition (which grew with the table).
--
-- Objects: column queen.partitions.message_count, backfilled once when the column is created.
-- queen.partition_counters (006) reads it.
--
-- Locking: the counter is changed on the partition row the writers already lock (pushes add in the same
-- UPDATE that advances next_position; retention, message delete and queue clear subtract).

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                 WHERE table_schema = 'queen' AND table_name = 'partitions' AND column_name = 'message_count') THEN
    ALTER TABLE queen.partitions ADD COLUMN message_count bigint NOT NULL DEFAULT 0;
    UPDATE queen.partitions p SET message_count = (SELECT count(*) FROM queen.messages m WHERE m.partition_id = p.id);
  END IF;
END $$;
