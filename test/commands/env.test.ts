/**
 * `queenctl env list` and `env check` (docs/cli.md, "queenctl env check"): the broker's variable table and validation
 * run on a given environment and env file, in this process with stdout, stderr and the exit code captured; --pg
 * connects to the test PostgreSQL server.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import EnvCheck from '../../src/commands/env/check.js'
import EnvList from '../../src/commands/env/list.js'
import { serverConnection } from '../support/database.js'
import { runCommand } from '../support/run-command.js'

const KEY = 'ab'.repeat(32)
let directory: string
let envFile: string

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'queenctl-env-'))
  envFile = path.join(directory, 'queen.env')
  await writeFile(envFile, 'LOG_LEVEL=debug\n# a comment\nDB_POOL_SIZE=99\n')
})
afterAll(async () => {
  await rm(directory, { recursive: true, force: true })
})

type Row = { name: string; value: string | null; source: string; setAs: string | null; default: string }
const list = (env: Record<string, string>, ...argv: string[]) => runCommand(EnvList, 'env:list', argv, { env })
const check = (env: Record<string, string>, ...argv: string[]) => runCommand(EnvCheck, 'env:check', argv, { env })
const byName = (rows: Row[]) => Object.fromEntries(rows.map((row) => [row.name, row]))

describe('queenctl env list', () => {
  it('shows each set variable with its source; the environment wins over the env file; secrets redacted', async () => {
    const result = await list(
      { DB_POOL_SIZE: '7', PG_DB: 'queen', QUEEN_ENCRYPTION_KEY: KEY },
      '--env-file',
      envFile,
      '-o',
      'json',
    )
    expect(result.code, result.stderr).toBe(0)
    const rows = byName(JSON.parse(result.stdout))
    expect(rows.DB_POOL_SIZE).toMatchObject({ value: '7', source: 'env', default: '20' })
    expect(rows.LOG_LEVEL).toMatchObject({ value: 'debug', source: 'env-file' })
    expect(rows.PG_DATABASE).toMatchObject({ value: 'queen', source: 'env', setAs: 'PG_DB' })
    expect(rows.QUEEN_ENCRYPTION_KEY).toMatchObject({ value: '<set:64 chars>', source: 'env' })
    expect(result.stdout).not.toContain(KEY)
    // Only variables that are set, without --all.
    expect(Object.values(rows).every((row) => row.source !== 'default')).toBe(true)
  })

  it('prints secrets with --show-secrets and every variable with --all', async () => {
    const shown = byName(JSON.parse((await list({ QUEEN_ENCRYPTION_KEY: KEY }, '--show-secrets', '-o', 'json')).stdout))
    expect(shown.QUEEN_ENCRYPTION_KEY!.value).toBe(KEY)
    const all = byName(JSON.parse((await list({}, '--all', '-o', 'json')).stdout))
    expect(all.DB_STATEMENT_TIMEOUT).toMatchObject({ value: '30000', source: 'default', default: '30000' })
  })

  it('prints a table with the alias read in SOURCE', async () => {
    const result = await list({ PG_DB: 'queen' }, '-o', 'table')
    const lines = result.stdout.split('\n')
    expect(lines[0]).toMatch(/^NAME\s+VALUE\s+SOURCE\s+DEFAULT$/)
    expect(lines.find((line) => line.startsWith('PG_DATABASE '))).toMatch(
      /^PG_DATABASE\s+queen\s+env \(PG_DB\)\s+postgres$/,
    )
  })

  it('names a missing --env-file', async () => {
    const result = await list({}, '--env-file', path.join(directory, 'missing.env'), '-o', 'table')
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `queenctl: --env-file ${path.join(directory, 'missing.env')}: ENOENT\nhint: pass a readable KEY=VALUE file\n`,
    })
  })
})

describe('queenctl env check', () => {
  it('passes a valid environment and a spool directory that can be created', async () => {
    const spool = path.join(directory, 'spool', 'buffers')
    const result = await check({ FILE_BUFFER_DIR: spool, DB_POOL_SIZE: '5' }, '-o', 'table')
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^ok: the configuration is valid \(\d+ variable\(s\) set\)\n/)
    expect(result.stdout).toContain(`ok: ${spool} can be created (in ${directory})\n`)
    expect(result.stdout).not.toMatch(/^error:/m)
  })

  it('reports every invalid variable, from the environment and the env file, and exits 1', async () => {
    await writeFile(path.join(directory, 'bad.env'), 'POP_WAIT_BACKOFF_MULTIPLIER=fast\n')
    const result = await check(
      { DB_POOL_SIZE: 'lots', QUEEN_ENCRYPTION_KEY: 'short' },
      '--env-file',
      path.join(directory, 'bad.env'),
      '-o',
      'table',
    )
    expect(result.code).toBe(1)
    const errors = result.stdout.split('\n').filter((line) => line.startsWith('error: '))
    expect(errors).toHaveLength(3)
    expect(errors.some((line) => line.includes('DB_POOL_SIZE'))).toBe(true)
    expect(errors.some((line) => line.includes('QUEEN_ENCRYPTION_KEY'))).toBe(true)
    expect(errors.some((line) => line.includes('POP_WAIT_BACKOFF_MULTIPLIER'))).toBe(true)
    expect(result.stderr).toBe(
      'queenctl: the broker environment has 3 problem(s)\n' +
        'hint: fix the variables named above; queenctl env list --all shows every variable with its default\n',
    )
    const json = await check({ DB_POOL_SIZE: 'lots' }, '-o', 'json')
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, findings: [{ level: 'error', check: 'variables' }] })
  })

  it('refuses a spool path that is a file', async () => {
    const result = await check({ FILE_BUFFER_DIR: envFile }, '-o', 'table')
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(`error: FILE_BUFFER_DIR ${envFile}: ${envFile} is not a directory\n`)
  })

  it('--pg connects, reports the version and checks max_connections against the replicas', async () => {
    const server = serverConnection()
    const env = {
      PG_HOST: String(server.host),
      PG_PORT: String(server.port),
      PG_USER: String(server.user),
      PG_PASSWORD: String(server.password ?? ''),
      PG_DATABASE: 'postgres',
      DB_POOL_SIZE: '2',
      FILE_BUFFER_DIR: path.join(directory, 'pg-spool'),
    }
    const fits = await check(env, '--pg', '--replicas', '1', '-o', 'table')
    expect(fits.stderr).toBe('')
    expect(fits.code).toBe(0)
    expect(fits.stdout).toMatch(
      new RegExp(`^ok: connected to PostgreSQL \\d+[.\\d]*.* at ${server.host}:${server.port}/postgres$`, 'm'),
    )
    expect(fits.stdout).toMatch(/^ok: max_connections \d+, needed 5 = 1 replicas x \(DB_POOL_SIZE 2 \+ 3\)$/m)
    const many = await check({ ...env, DB_POOL_SIZE: '1000' }, '--pg', '--replicas', '100', '-o', 'table')
    expect(many.code).toBe(1)
    expect(many.stdout).toMatch(
      /^error: max_connections \d+, needed 100300 = 100 replicas x \(DB_POOL_SIZE 1000 \+ 3\): raise max_connections or lower DB_POOL_SIZE$/m,
    )
  })
})
