import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QUERY_FILES, SQL, type QueryName } from '../../../src/broker/db/queries/index.js'
import { createTestDatabase, databaseConnection, dropTestDatabase } from '../../support/database.js'

let database: string
let client: pg.Client
beforeAll(async () => {
  database = await createTestDatabase('queries')
  client = new pg.Client(databaseConnection(database))
  await client.connect()
})
afterAll(async () => {
  await client.end()
  await dropTestDatabase(database)
})

// Every registered runtime statement parses and type-checks against the schema (style.md 3.11): a typo or a
// schema drift fails here in milliseconds instead of on the first request that needs the statement.
describe('runtime statement registry', () => {
  it.each(Object.keys(SQL) as QueryName[])('%s prepares against the schema', async (name) => {
    await client.query(`PREPARE check_statement AS ${SQL[name]}`)
    await client.query('DEALLOCATE check_statement')
    expect(QUERY_FILES[name]).toMatch(/\.sql$/)
  })
})
