/**
 * pg loaded without its Cloudflare probe (issue 22): Node's bundled undici stays unloaded, pg uses Node's
 * sockets, and `Response` is a working global afterwards.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const REPO = fileURLToPath(new URL('../../..', import.meta.url))

async function runModule(script: string): Promise<unknown> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '--eval', script],
    { cwd: REPO },
  )
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null')
}

const UNDICI = `process.moduleLoadList.some((name) => name.includes('internal/deps/undici/undici'))`

describe('preloadPg', () => {
  it('loads pg without loading undici, and leaves Response working', async () => {
    const result = await runModule(`
      import { preloadPg } from './src/broker/parts/pg-preload.ts'
      await preloadPg()
      const { default: pg } = await import('pg')
      const afterPg = ${UNDICI}
      const socket = new pg.Client().connection.stream
      const status = new Response('x').status
      console.log(JSON.stringify({ afterPg, nodeSocket: socket?.constructor?.name, status, afterResponse: ${UNDICI} }))
    `)
    expect(result).toEqual({ afterPg: false, nodeSocket: 'Socket', status: 200, afterResponse: true })
  })

  it('is what loading pg plainly costs: its probe loads undici', async () => {
    const result = await runModule(`
      await import('pg')
      console.log(JSON.stringify(${UNDICI}))
    `)
    expect(result).toBe(true)
  })
})
