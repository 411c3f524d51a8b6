/**
 * The gateway's schema as the platform's schema apply sees it (docs/gateway.md, "Its database"): the files of
 * `src/gateway/schema/`, its own advisory lock, and the `queen_proxy` schema that holds its ledger.
 */
import type { SchemaSource } from '../../platform/postgres/schema-apply.js'

/** The bytes "QPRX" read as a big-endian 32-bit integer (0x51505258): distinct from the broker's "QUEN". */
export const GATEWAY_SCHEMA_LOCK_KEY = 0x51505258

export const GATEWAY_SCHEMA: SchemaSource = {
  dir: new URL('../schema/', import.meta.url),
  lockKey: GATEWAY_SCHEMA_LOCK_KEY,
  schema: 'queen_proxy',
  expectedObjects: [
    "to_regclass('queen_proxy.tenants')",
    "to_regclass('queen_proxy.api_keys')",
    "to_regclass('queen_proxy.users')",
    "to_regclass('queen_proxy.sessions')",
  ],
}
