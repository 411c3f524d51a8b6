/**
 * The hot statements keep reading by key when their generic plans were made on a freshly vacuumed, empty
 * messages table (what retention leaves behind): such a plan is kept by the session until an analyze
 * invalidates it, and a whole-table scan in it makes every push or pop slower as the table grows again.
 * The plans are read with auto_explain, which the embedded server ships.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { randomUUID } from 'node:crypto'
import { useTestDatabase } from '../../support/database.js'

const testDatabase = useTestDatabase('plans')
const plans: string[] = []
beforeAll(() => {
  testDatabase.client().on('notice', (notice) => {
    if (notice.message?.includes('plan:')) plans.push(`${notice.message}\n${notice.where ?? ''}`)
  })
})

async function push(count: number, prefix: string): Promise<void> {
  const items = Array.from({ length: count }, (_, i) => ({
    i,
    q: 'plans',
    p: 'p1',
    id: randomUUID(),
    tx: `${prefix}-${i}`,
    pl: { n: i, pad: 'x'.repeat(100) },
  }))
  await testDatabase.client().query(`SELECT count(*) FROM queen.push_messages('', $1::jsonb)`, [JSON.stringify(items)])
}

async function popAll(): Promise<number> {
  const result = await testDatabase.client().query<{ n: string }>(
    `SELECT count(*) AS n FROM queen.pop_messages((SELECT id FROM queen.queues WHERE name = 'plans'), NULL,
       '__QUEUE_MODE__', 1000, 1, $1, true, NULL, NULL) WHERE kind = 'message'`,
    [randomUUID()],
  )
  return Number(result.rows[0]!.n)
}

/** The plans auto_explain printed for the statements of the next `work` that read queen.messages. */
async function plansOf(work: () => Promise<unknown>): Promise<string[]> {
  plans.length = 0
  await testDatabase.client().query(`LOAD 'auto_explain'`)
  await testDatabase.client().query(`SET auto_explain.log_min_duration = 0`)
  await testDatabase.client().query(`SET auto_explain.log_nested_statements = on`)
  await testDatabase.client().query(`SET auto_explain.log_level = notice`)
  await testDatabase.client().query(`SET client_min_messages = notice`)
  await work()
  await testDatabase.client().query(`SET auto_explain.log_min_duration = -1`)
  return plans.filter((plan) => / on messages\b|queen\.messages/.test(plan))
}

describe('plans made on an empty messages table', () => {
  it('push and pop still look messages up by key after the table grew', async () => {
    // A first push creates the queue and partition; the table is then emptied and vacuumed, so its
    // statistics say 0 rows, and one push and pop in this session make and cache the generic plans.
    await push(1, 'seed')
    await testDatabase.client().query('TRUNCATE queen.messages')
    await testDatabase.client().query('VACUUM ANALYZE queen.messages')
    await push(1, 'first')
    expect(await popAll()).toBe(1)
    for (let round = 0; round < 20; round++) await push(500, `grow${round}`)

    const pushPlans = await plansOf(() => push(100, 'probe'))
    const popPlans = await plansOf(async () => expect(await popAll()).toBe(1000))
    for (const plan of [...pushPlans, ...popPlans]) {
      expect(plan).not.toMatch(/Seq Scan on messages/)
      // An index scan without an index condition reads the whole index.
      for (const scan of plan.matchAll(
        /Index (?:Only )?Scan (?:Backward )?using \w+ on messages(?: \w+)? +\(cost[^\n]*\n\s+(\S[^\n]*)/g,
      )) {
        expect(scan[1]).toMatch(/^Index Cond:/)
      }
    }
    expect(pushPlans.some((plan) => /messages_transaction_idx/.test(plan))).toBe(true)
    expect(popPlans.length).toBeGreaterThan(0)
  })
})
