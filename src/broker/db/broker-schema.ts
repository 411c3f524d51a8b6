/**
 * The broker's schema as the platform's schema apply sees it (docs/design.md, "Schema at boot"): the files
 * of `src/broker/schema/`, the advisory lock, and the `queen` schema that holds its ledger.
 */
import type { SchemaSource } from '../../platform/postgres/schema-apply.js'

/**
 * The advisory lock key serialising schema applies across brokers and CLI runs: the bytes "QUEN" read as
 * a big-endian 32-bit integer (0x5155454e). Documented so a DBA can see who holds it in pg_locks.
 */
export const SCHEMA_LOCK_KEY = 0x5155454e

/** The broker's schema. */
export const BROKER_SCHEMA: SchemaSource = {
  dir: new URL('../schema/', import.meta.url),
  lockKey: SCHEMA_LOCK_KEY,
  schema: 'queen',
  // The data plane cannot work without these.
  expectedObjects: [
    "to_regclass('queen.queues')",
    "to_regclass('queen.partitions')",
    "to_regclass('queen.messages')",
    "to_regclass('queen.consumers')",
    "to_regclass('queen.message_states')",
    "to_regclass('queen.dead_letters')",
    "to_regproc('queen.push_batch')",
    "to_regproc('queen.push_messages')",
    "to_regproc('queen.pop_messages')",
    "to_regproc('queen.ack_messages')",
  ],
}
