/**
 * Encryption at rest with a real `queenctl serve` (docs/reliability.md, "Hazards"): an encrypted queue through
 * a PostgreSQL outage (the spool holds ciphertext only, replay stores it as is), and the boot refusing
 * every malformed QUEEN_ENCRYPTION_KEY before it writes anything.
 */
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { encryptionKeyId } from '../../src/platform/config/key-format.js'
import { PayloadCipher } from '../../src/broker/crypto/payload-cipher.js'
import { scanSegment } from '../../src/broker/spool/record-format.js'
import { http } from '../support/broker.js'
import { createEmptyDatabase, dropDatabase, hasQueenSchema, pgEnv, runCli } from '../support/cli-harness.js'
import { startServe } from '../support/serve-process.js'
import type { TestProcess } from '../support/cli-harness.js'
import { createTestDatabase, databaseConnection, dropTestDatabase } from '../support/database.js'
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js'
import { sleep } from '../support/queen.js'

const KEY = randomBytes(32).toString('hex')

let proxy: FaultProxy
let database: string
let db: pg.Pool
const dirs: string[] = []

beforeAll(async () => {
  const connection = inject('pgConnection')
  proxy = await startFaultProxy({ host: connection.host, port: connection.port })
  database = await createTestDatabase('encspool')
  db = new pg.Pool({ ...databaseConnection(database), max: 2 })
})
afterAll(async () => {
  await db.end()
  await proxy.close()
  await dropTestDatabase(database)
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

function startBroker(spool: string, env: Record<string, string> = {}): Promise<{ process: TestProcess; url: string }> {
  return startServe({ pgPort: proxy.port, database, spool, env })
}

/** Every file under the spool directory, as bytes. */
async function spoolFiles(dir: string): Promise<{ name: string; bytes: Buffer }[]> {
  const files: { name: string; bytes: Buffer }[] = []
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const file = path.join(entry.parentPath, entry.name)
      files.push({ name: path.relative(dir, file), bytes: await readFile(file) })
    }
  }
  return files
}

function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1
}

describe('an encrypted queue through a PostgreSQL outage (T3.9)', () => {
  it('spools ciphertext only, replays it as is, and pops return every payload byte for byte', async () => {
    const spool = await mkdtemp('/tmp/queenctl-encspool-')
    dirs.push(spool)
    const broker = await startBroker(spool, { QUEEN_ENCRYPTION_KEY: KEY })
    const cipher = new PayloadCipher(KEY)
    try {
      // The boot shows that a key is set and its id, never the key.
      const output = broker.process.output()
      expect(output).toMatch(/encryption_key=<set:64 chars>/)
      expect(output).toContain(`key_id=${encryptionKeyId(KEY)}`)
      expect(output).not.toContain(KEY.slice(8, 40))

      // Two encrypted queues: one this broker has cached as encrypted, one it has not (configure
      // invalidates the cache): both must reach the disk as ciphertext.
      for (const queue of ['enc-cached', 'enc-uncached']) {
        const configured = await http(broker, 'POST', '/api/v1/configure', {
          queue,
          options: { encryptionEnabled: true },
        })
        expect(configured.status).toBe(200)
      }
      const warm = await http(broker, 'POST', '/api/v1/push', {
        items: [{ queue: 'enc-cached', partition: 'warm', transactionId: 'warm-0', payload: 'warm' }],
      })
      expect(warm.body[0].status).toBe('queued')

      proxy.setMode('refuse')
      const marker = randomBytes(32).toString('hex')
      const sent = new Map<string, unknown>()
      for (let request = 0; request < 10; request++) {
        const items = Array.from({ length: 100 }, (_, index) => {
          const n = request * 100 + index
          const payload =
            n % 3 === 0 ? `${marker}:${n}` : { marker, n, text: 'ünïcode ✓ "q" \\', list: [n, 0.5, null, false] }
          const transactionId = `outage-${n}`
          sent.set(transactionId, payload)
          return { queue: n % 2 === 0 ? 'enc-cached' : 'enc-uncached', partition: `p${n % 4}`, transactionId, payload }
        })
        const response = await http(broker, 'POST', '/api/v1/push', { items })
        expect(response.status, JSON.stringify(response.body)).toBe(200)
        expect(response.body.map((item: any) => item.status)).toEqual(items.map(() => 'buffered'))
      }

      // The marker never touched the disk; every record holds a ciphertext object.
      const files = await spoolFiles(spool)
      const onDisk = Buffer.concat(files.map((file) => file.bytes)).toString('latin1')
      expect(count(onDisk, marker)).toBe(0)
      const spooledIvs = new Set<string>()
      let records = 0
      for (const file of files.filter((entry) => /\.(open|seg)$/.test(entry.name))) {
        const scan = scanSegment(file.bytes, 64 * 1024 * 1024)
        for (const { record } of scan.records) {
          records += 1
          expect(record.encrypted).toBe(true)
          const payload = record.payload as Record<string, string>
          expect(Object.keys(payload).sort()).toEqual(['authTag', 'encrypted', 'iv', 'kid'])
          spooledIvs.add(payload.iv!)
        }
      }
      expect(records).toBe(1000)
      expect(spooledIvs.size).toBe(1000)

      proxy.setMode('pass')
      const deadline = Date.now() + 60_000
      let stored = 0
      while (Date.now() < deadline) {
        const result = await db.query(
          "SELECT count(*)::int AS n FROM queen.messages WHERE transaction_id LIKE 'outage-%'",
        )
        stored = result.rows[0].n
        if (stored === 1000 && (await readdir(spool)).every((name) => !/\.(seg|open)$/.test(name))) break
        await sleep(100)
      }
      expect(stored).toBe(1000)

      // PostgreSQL: no marker, every payload encrypted once with the spooled IV (stored as is).
      const markerRows = await db.query(
        'SELECT count(*)::int AS n FROM queen.messages WHERE strpos(payload::text, $1) > 0',
        [marker],
      )
      expect(markerRows.rows[0].n).toBe(0)
      const rows = await db.query(
        `SELECT m.transaction_id, m.payload, m.is_encrypted, p.name AS partition, q.name AS queue
         FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id
         WHERE m.transaction_id LIKE 'outage-%'`,
      )
      let doubleEncrypted = 0
      for (const row of rows.rows) {
        expect(row.is_encrypted).toBe(true)
        expect(spooledIvs.has(row.payload.iv)).toBe(true)
        const plaintext = JSON.parse(
          cipher.decrypt(row.payload, {
            tenant: '',
            queue: row.queue,
            partition: row.partition,
            transactionId: row.transaction_id,
          }),
        ) as unknown
        if (plaintext !== null && typeof plaintext === 'object' && 'kid' in plaintext) doubleEncrypted += 1
        expect(plaintext).toEqual(sent.get(row.transaction_id))
      }
      expect(doubleEncrypted).toBe(0)

      // Pops return every payload byte for byte.
      const delivered = new Map<string, unknown>()
      const texts: string[] = []
      const popDeadline = Date.now() + 30_000
      while (delivered.size < 1000 && Date.now() < popDeadline) {
        for (const queue of ['enc-cached', 'enc-uncached']) {
          const response = await fetch(`${broker.url}/api/v1/pop/queue/${queue}?batch=200`)
          const text = await response.text()
          const body = JSON.parse(text)
          const messages = (body.messages ?? []).filter((message: any) => message.transactionId !== 'warm-0')
          for (const message of messages) delivered.set(message.transactionId, message.data)
          texts.push(text)
          if ((body.messages ?? []).length > 0) {
            await http(broker, 'POST', '/api/v1/ack/batch', {
              acknowledgments: body.messages.map((message: any) => ({
                transactionId: message.transactionId,
                partitionId: message.partitionId,
                leaseId: message.leaseId,
              })),
            })
          }
        }
      }
      expect(delivered.size).toBe(1000)
      const allText = texts.join('\n')
      for (const [transactionId, payload] of sent) {
        expect(delivered.get(transactionId)).toEqual(payload)
        expect(allText).toContain(JSON.stringify(payload))
      }
    } finally {
      proxy.setMode('pass')
      await broker.process.kill()
    }
  })
})

describe('a malformed QUEEN_ENCRYPTION_KEY (T8)', () => {
  const good = 'c0ffee'.repeat(10) + 'abcd'
  it.each([
    ['63 characters', good.slice(1)],
    ['65 characters', `${good}0`],
    ['a non-hexadecimal g', `${good.slice(0, 20)}g${good.slice(21)}`],
    ['a 0x prefix', `0x${good}`],
    ['a trailing newline', `${good}\n`],
    ['a trailing space', `${good} `],
  ])('with %s stops the boot with exit 1, names the variable, and writes nothing', async (_label, key) => {
    expect(good).toHaveLength(64)
    const empty = await createEmptyDatabase('badkey')
    const base = await mkdtemp('/tmp/queenctl-badkey-')
    dirs.push(base)
    const spool = path.join(base, 'spool-never-created')
    try {
      const result = await runCli(['serve'], {
        env: {
          ...pgEnv(empty),
          PORT: '0',
          HOST: '127.0.0.1',
          FILE_BUFFER_DIR: spool,
          QUEEN_ENCRYPTION_KEY: key,
        },
      })
      const output = `${result.stdout}\n${result.stderr}`
      expect(result.code, output).toBe(1)
      expect(result.stderr).toContain('QUEEN_ENCRYPTION_KEY')
      expect(output).not.toContain(good.slice(4, 40))
      expect(output).not.toMatch(/\blistening\b/)
      expect(existsSync(spool)).toBe(false)
      expect(await hasQueenSchema(empty)).toBe(false)
    } finally {
      await dropDatabase(empty)
    }
  })
})
