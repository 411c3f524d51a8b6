/**
 * One embedded PostgreSQL per test run (docs/conventions.md, "Tests"): started in a temporary directory, a template
 * database built by our own schema-apply code, and its connection handed to the test files, which clone
 * their own database from the template.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import path from 'node:path'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { startEmbeddedPostgres } from '../../src/platform/postgres/embedded-postgres.js'
import { BROKER_SCHEMA } from '../../src/broker/db/broker-schema.js'
import { applySchema } from '../../src/platform/postgres/schema-apply.js'

declare module 'vitest' {
  export interface ProvidedContext {
    pgConnection: { host: string; port: number; user: string; password: string }
    pgTemplate: string
  }
}

export const TEMPLATE_DATABASE = 'queen_template'

export default async function setup(project: TestProject) {
  // /tmp rather than the OS temp dir under /root: the server runs as an unprivileged user when we are root.
  const dataDir = await mkdtemp(path.join('/tmp', 'queenctl-test-pg-'))
  const server = await startEmbeddedPostgres({
    dataDir,
    port: 0,
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '300' },
  })
  const admin = new pg.Client(server.connection)
  await admin.connect()
  await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`)
  await admin.end()
  const template = new pg.Client({ ...server.connection, database: TEMPLATE_DATABASE })
  await template.connect()
  await applySchema(template, BROKER_SCHEMA)
  await template.end()

  // Children's spools and other scratch files of the run go under one directory, removed at the end; the
  // test workers, forked after this, inherit the variable.
  const scratchDir = await mkdtemp(path.join('/tmp', 'queenctl-test-scratch-'))
  process.env.QUEENCTL_TEST_SCRATCH = scratchDir

  const { host, port, user, password } = server.connection
  project.provide('pgConnection', { host, port, user, password })
  project.provide('pgTemplate', TEMPLATE_DATABASE)

  return async () => {
    await server.stop()
    await rm(dataDir, { recursive: true, force: true })
    await rm(scratchDir, { recursive: true, force: true })
  }
}
