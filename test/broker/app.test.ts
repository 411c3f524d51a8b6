/**
 * The broker's fastify app loads fastify's schema compilers (ajv, fast-json-stringify) only when a route
 * with a schema needs them (issue 22: no broker route declares one); a route that does is still validated and
 * serialised as fastify would.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { createBrokerApp } from '../../src/broker/app.js'

const REPO = fileURLToPath(new URL('../..', import.meta.url))

describe('createBrokerApp', () => {
  it('validates and serialises a route with a schema through compilers loaded on first use', async () => {
    const app = createBrokerApp({ maxBodyBytes: 1024 * 1024, defaultTimeoutMs: 30_000 }, pino({ enabled: false }))
    app.post(
      '/checked',
      {
        schema: {
          body: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
          response: { 200: { type: 'object', properties: { doubled: { type: 'integer' } } } },
        },
      },
      (request) => ({ doubled: (request.body as { n: number }).n * 2, dropped: 'not in the response schema' }),
    )
    try {
      const ok = await app.inject({ method: 'POST', url: '/checked', payload: { n: 21 } })
      expect(ok.statusCode).toBe(200)
      expect(ok.json()).toEqual({ doubled: 42 })
      const bad = await app.inject({ method: 'POST', url: '/checked', payload: { n: 'x' } })
      expect(bad.statusCode).toBe(400)
    } finally {
      await app.close()
    }
  })

  it('does not load ajv for a broker app whose routes declare no schema', async () => {
    // A fresh process: the test runner's own modules may have loaded ajv already. (Fastify's error
    // serializer loads fast-json-stringify's small runtime, not its compiler.)
    const script = `
      import { createRequire } from 'node:module'
      import pino from 'pino'
      import { createBrokerApp } from './src/broker/app.ts'
      const app = createBrokerApp({ maxBodyBytes: 1024, defaultTimeoutMs: 30000 }, pino({ enabled: false }))
      app.get('/plain', () => ({ ok: true }))
      await app.ready()
      const loaded = Object.keys(createRequire(import.meta.url).cache)
      const compilers = /[\\\\/]node_modules[\\\\/](ajv|@fastify[\\\\/](ajv-compiler|fast-json-stringify-compiler)|fast-json-stringify[\\\\/]index\\.js)/
      console.log(JSON.stringify(loaded.filter((file) => compilers.test(file))))
      await app.close()
    `
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '--eval', script],
      { cwd: REPO },
    )
    expect(JSON.parse(stdout.trim())).toEqual([])
  })
})
