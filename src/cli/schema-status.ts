/**
 * `schema status` (docs/cli.md, "Command reference"): the schema installed in a PostgreSQL database against the files
 * of this CLI, read from the ledger `schema apply` and `serve` write, without taking the lock or changing anything.
 */
import pg from 'pg'
import {
  installedSchemaVersion,
  loadSchemaFiles,
  plannedStatus,
  readSchemaLedger,
  requiredSchemaVersion,
} from '../platform/postgres/schema-apply.js'
import { BROKER_SCHEMA } from '../broker/db/broker-schema.js'
import { EXIT, UserError } from './errors.js'

/** How the database relates to this CLI. */
export type SchemaState = 'not installed' | 'pending' | 'current' | 'ahead'

export interface SchemaStatus {
  installedVersion: number
  requiredVersion: number
  state: SchemaState
  files: { name: string; status: 'new' | 'changed' | 'unchanged' }[]
}

/** Reads the ledger of the database at `connection`; a connection failure exits 2. */
export async function readSchemaStatus(connection: pg.ClientConfig): Promise<SchemaStatus> {
  const client = new pg.Client({ ...connection, application_name: 'queenctl schema status' })
  try {
    await client.connect()
  } catch (error) {
    throw new UserError(`cannot connect to PostgreSQL: ${(error as Error).message}`, {
      exitCode: EXIT.server,
      hint: 'check --pg-url or the PG_* variables',
      cause: error,
    })
  }
  try {
    const shipped = loadSchemaFiles(BROKER_SCHEMA)
    const ledger = await readSchemaLedger(client, BROKER_SCHEMA)
    const installedVersion = await installedSchemaVersion(client, BROKER_SCHEMA)
    const requiredVersion = requiredSchemaVersion(shipped)
    const files = shipped.map((file) => ({
      name: file.name,
      status: plannedStatus(file, ledger) as 'new' | 'changed' | 'unchanged',
    }))
    const state: SchemaState =
      ledger.size === 0
        ? 'not installed'
        : installedVersion > requiredVersion
          ? 'ahead'
          : files.some((file) => file.status !== 'unchanged')
            ? 'pending'
            : 'current'
    return { installedVersion, requiredVersion, state, files }
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** What to do about the state, for the detail view. */
export function schemaAdvice(status: SchemaStatus): string {
  switch (status.state) {
    case 'current':
      return 'the database has every schema file of this CLI'
    case 'not installed':
      return 'no schema installed; run queenctl schema apply (or start queenctl serve)'
    case 'pending':
      return 'run queenctl schema apply to install the files above'
    case 'ahead':
      return 'the database was set up by a newer queenctl; upgrade this CLI before applying'
  }
}
