import { describe, expect, it } from 'vitest'
import { QUERY_FILES, SQL, type QueryName } from '../../../src/broker/db/queries/index.js'
import { useTestDatabase } from '../../support/database.js'

const testDatabase = useTestDatabase('queries')

// Every registered runtime statement parses and type-checks against the schema (docs/conventions.md, "Tests"): a typo
// or a schema drift fails here in milliseconds instead of on the first request that needs the statement.
describe('runtime statement registry', () => {
  it.each(Object.keys(SQL) as QueryName[])('%s prepares against the schema', async (name) => {
    await testDatabase.client().query(`PREPARE check_statement AS ${SQL[name]}`)
    await testDatabase.client().query('DEALLOCATE check_statement')
    expect(QUERY_FILES[name]).toMatch(/\.sql$/)
  })
})
