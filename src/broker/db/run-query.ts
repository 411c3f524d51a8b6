/** The broker's statements run by name (db/queries/): the platform's runners, typed to the broker's registry. */
import type pg from 'pg'
import { executeStatement, runStatement, runStatementRawJson } from '../../platform/postgres/pool.js'
import { STATEMENTS, type QueryName } from './queries/index.js'

/** Runs a registered statement. */
export function runQuery<Row extends pg.QueryResultRow>(
  db: pg.Pool | pg.ClientBase,
  name: QueryName,
  values: unknown[] = [],
): Promise<Row[]> {
  return runStatement<Row>(db, STATEMENTS[name], values)
}

/** Like {@link runQuery}, but json/jsonb columns arrive as their JSON text (not parsed). */
export function runQueryRawJson<Row extends pg.QueryResultRow>(
  db: pg.Pool | pg.ClientBase,
  name: QueryName,
  values: unknown[] = [],
): Promise<Row[]> {
  return runStatementRawJson<Row>(db, STATEMENTS[name], values)
}

/** Runs a registered statement that returns no rows; resolves with the number of rows it changed. */
export function executeQuery(db: pg.Pool | pg.ClientBase, name: QueryName, values: unknown[] = []): Promise<number> {
  return executeStatement(db, STATEMENTS[name], values)
}
