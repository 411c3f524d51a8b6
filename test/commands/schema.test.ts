/**
 * `queenctl schema apply` and `queenctl schema print` (docs/cli.md, "queenctl schema apply"), run as a user runs them:
 * `node bin/run.js` from the build, against empty databases of the test server.
 */
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { BROKER_SCHEMA } from '../../src/broker/db/broker-schema.js'
import { verifySchema } from '../../src/platform/postgres/schema-apply.js'
import { connect, createEmptyDatabase, dropDatabase, hasQueenSchema, pgUrl, runCli } from '../support/cli-harness.js'

const schemaDir = fileURLToPath(new URL('../../src/broker/schema/', import.meta.url))
const shippedNames = readdirSync(schemaDir)
  .filter((name) => name.endsWith('.sql'))
  .sort()
const version = Math.max(...shippedNames.map((name) => Number.parseInt(name.slice(0, 3), 10)))

interface ApplyJson {
  version: number
  dryRun: boolean
  files: { name: string; status: string; ms: number }[]
  lockWaitMs: number
}

async function withEmptyDatabase(label: string, body: (database: string) => Promise<void>): Promise<void> {
  const database = await createEmptyDatabase(label)
  try {
    await body(database)
  } finally {
    await dropDatabase(database)
  }
}

function parseJson(stdout: string): ApplyJson {
  try {
    return JSON.parse(stdout) as ApplyJson
  } catch (error) {
    throw new Error(`stdout is not one JSON document: ${stdout}`, { cause: error })
  }
}

describe('queenctl schema apply', () => {
  it('applies the schema to an empty database and names the version', async () => {
    await withEmptyDatabase('cli_apply', async (database) => {
      const result = await runCli(['schema', 'apply', '--pg-url', pgUrl(database)])

      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toMatch(new RegExp(`\\bversion ${version}\\b`))
      const client = await connect(database)
      try {
        expect(await verifySchema(client, BROKER_SCHEMA)).toEqual([])
        const ledger = await client.query<{ file_name: string }>(
          'SELECT file_name FROM queen.schema_ledger ORDER BY file_name',
        )
        expect(ledger.rows.map((row) => row.file_name)).toEqual(shippedNames)
      } finally {
        await client.end()
      }
    })
  })

  it('--json reports every file applied the first time and unchanged the second', async () => {
    await withEmptyDatabase('cli_json', async (database) => {
      const first = await runCli(['schema', 'apply', '--pg-url', pgUrl(database), '--json'])
      expect(first.code, first.stderr).toBe(0)
      const firstJson = parseJson(first.stdout)
      expect(firstJson).toMatchObject({ version, dryRun: false })
      expect(typeof firstJson.lockWaitMs).toBe('number')
      expect(firstJson.files.map((file) => [file.name, file.status])).toEqual(
        shippedNames.map((name) => [name, 'applied']),
      )
      for (const file of firstJson.files) expect(file.ms).toBeGreaterThanOrEqual(0)

      const second = await runCli(['schema', 'apply', '--pg-url', pgUrl(database), '--json'])
      expect(second.code, second.stderr).toBe(0)
      const secondJson = parseJson(second.stdout)
      expect(secondJson).toMatchObject({ version, dryRun: false })
      expect(secondJson.files.map((file) => [file.name, file.status])).toEqual(
        shippedNames.map((name) => [name, 'unchanged']),
      )
    })
  })

  it('--dry-run on an empty database lists every file as new and creates nothing', async () => {
    await withEmptyDatabase('cli_dry', async (database) => {
      const human = await runCli(['schema', 'apply', '--pg-url', pgUrl(database), '--dry-run'])
      expect(human.code, human.stderr).toBe(0)
      const text = `${human.stdout}\n${human.stderr}`
      for (const name of shippedNames) {
        const line = text.split('\n').find((candidate) => candidate.includes(name) && /\bnew\b/.test(candidate))
        expect(line, `a line listing ${name} as new in:\n${text}`).toBeDefined()
      }

      const json = await runCli(['schema', 'apply', '--pg-url', pgUrl(database), '--dry-run', '--json'])
      expect(json.code, json.stderr).toBe(0)
      const parsed = parseJson(json.stdout)
      expect(parsed).toMatchObject({ version, dryRun: true })
      expect(parsed.files.map((file) => [file.name, file.status])).toEqual(shippedNames.map((name) => [name, 'new']))

      expect(await hasQueenSchema(database)).toBe(false)
    })
  })

  it('exits 2 with a queenctl: message when PostgreSQL is unreachable', async () => {
    const result = await runCli(['schema', 'apply', '--pg-url', 'postgres://x:y@127.0.0.1:1/db'])

    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^queenctl: /m)
  })

  it('exits 1 for a --pg-url that is not a URL', async () => {
    const result = await runCli(['schema', 'apply', '--pg-url', 'not-a-url'])

    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^queenctl: .*--pg-url/m)
  })
})

describe('queenctl schema print', () => {
  it('prints a script that, run on an empty database, installs a complete schema', async () => {
    const printed = await runCli(['schema', 'print'])
    expect(printed.code, printed.stderr).toBe(0)
    for (const name of shippedNames) expect(printed.stdout).toContain(name)

    await withEmptyDatabase('cli_print', async (database) => {
      // A DBA applies the script without psql: one simple-protocol query
      const client = await connect(database)
      try {
        await client.query(printed.stdout)
        expect(await verifySchema(client, BROKER_SCHEMA)).toEqual([])
      } finally {
        await client.end()
      }

      // And `schema apply` afterwards finds nothing to do
      const apply = await runCli(['schema', 'apply', '--pg-url', pgUrl(database), '--json'])
      expect(apply.code, apply.stderr).toBe(0)
      expect(parseJson(apply.stdout).files.map((file) => [file.name, file.status])).toEqual(
        shippedNames.map((name) => [name, 'unchanged']),
      )
    })
  })
})
