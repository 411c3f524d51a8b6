/** Runs the gateway's registered statements by name (the broker's equivalent is broker/db/run-query.ts). */
import type pg from 'pg'
import { executeStatement, runStatement } from '../../platform/postgres/pool.js'
import { GATEWAY_SQL, type GatewayStatementName } from '../db/statements.js'

export function gatewayQuery<Row extends pg.QueryResultRow>(
  db: pg.Pool | pg.ClientBase,
  name: GatewayStatementName,
  values: unknown[] = [],
): Promise<Row[]> {
  return runStatement<Row>(db, GATEWAY_SQL.statements[name], values)
}

export function gatewayExecute(
  db: pg.Pool | pg.ClientBase,
  name: GatewayStatementName,
  values: unknown[] = [],
): Promise<number> {
  return executeStatement(db, GATEWAY_SQL.statements[name], values)
}
