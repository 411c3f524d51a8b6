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

/** The plans of `plans` that read queen.messages. */
function messagePlans(plans: string[]): string[] {
  return plans.filter((plan) => / on messages\b|queen\.messages/.test(plan))
}

/**
 * The statements of `plans` that a PostgreSQL built with LLVM (Debian's and the PGDG packages, `jit = on` by
 * default) would compile on every execution: estimated above jit_above_cost and not run with jit off. A
 * plan node the function disables (enable_sort = off) still runs when nothing replaces it, at a cost of 10^10,
 * and compiling such a pop took 0.9 s on PostgreSQL 15. The embedded server has no LLVM, so the estimate
 * and the settings the statement ran with are what can be checked here.
 */
async function jitCompiledStatements(plans: string[]): Promise<string[]> {
  const threshold = Number(
    (await testDatabase.client().query<{ c: string }>(`SELECT current_setting('jit_above_cost') AS c`)).rows[0]!.c,
  )
  return plans
    .filter((plan) => {
      const cost = Number(/\(cost=[\d.]+\.\.([\d.]+) /.exec(plan)?.[1] ?? '0')
      return cost > threshold && !/^Settings: .*jit = 'off'/m.test(plan)
    })
    .map((plan) => plan.split('\n').slice(1, 3).join(' ').slice(0, 160))
}

/** Every plan auto_explain printed for the statements of the next `work` (with `analyze`, as run: loops counted). */
async function allPlansOf(work: () => Promise<unknown>, analyze = false): Promise<string[]> {
  plans.length = 0
  await testDatabase.client().query(`LOAD 'auto_explain'`)
  await testDatabase.client().query(`SET auto_explain.log_analyze = ${analyze ? 'on' : 'off'}`)
  await testDatabase.client().query(`SET auto_explain.log_settings = on`)
  await testDatabase.client().query(`SET auto_explain.log_min_duration = 0`)
  await testDatabase.client().query(`SET auto_explain.log_nested_statements = on`)
  await testDatabase.client().query(`SET auto_explain.log_level = notice`)
  await testDatabase.client().query(`SET client_min_messages = notice`)
  await work()
  await testDatabase.client().query(`SET auto_explain.log_min_duration = -1`)
  return [...plans]
}

/** Every scan of `table` in `plans` with the line that follows it (its condition or filter). */
function scansOf(plans: string[], table: string): string[] {
  const pattern = new RegExp(
    `(?:Seq Scan on ${table}\\b|Index (?:Only )?Scan (?:Backward )?using \\w+ on ${table}(?: \\w+)?) +\\(cost[^\\n]*\\n\\s+([^\\n]*)`,
    'g',
  )
  return plans.flatMap((plan) =>
    [...plan.matchAll(pattern)].map((match) => `${match[0].split('\n')[0]!.trim()} | ${match[1]}`),
  )
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

    const allPushPlans = await allPlansOf(() => push(100, 'probe'))
    const allPopPlans = await allPlansOf(async () => expect(await popAll()).toBe(1000))
    expect(await jitCompiledStatements([...allPushPlans, ...allPopPlans])).toEqual([])
    const pushPlans = messagePlans(allPushPlans)
    const popPlans = messagePlans(allPopPlans)
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

  it('wildcard pops and whole-lease acks keep reading consumer rows and message states by key after those grew', async () => {
    const db = testDatabase.client()
    const queue = async () => (await db.query(`SELECT id FROM queen.queues WHERE name = 'wide'`)).rows[0].id as string
    const pushWide = async (partitions: number, prefix: string) => {
      const items = Array.from({ length: partitions }, (_, i) => ({
        i,
        q: 'wide',
        p: `p${i}`,
        id: randomUUID(),
        tx: `${prefix}-${i}`,
        pl: {},
      }))
      await db.query(`SELECT count(*) FROM queen.push_messages('', $1::jsonb)`, [JSON.stringify(items)])
    }
    const popAndAck = async (partitions: number) => {
      const lease = randomUUID()
      const rows = (
        await db.query(
          `SELECT * FROM queen.pop_messages($1, NULL, '__QUEUE_MODE__', 100, $2, $3, false, NULL, NULL) WHERE kind = 'message'`,
          [await queue(), partitions, lease],
        )
      ).rows
      const byPartition = new Map<string, string[]>()
      for (const row of rows)
        byPartition.set(row.partition_id, [...(byPartition.get(row.partition_id) ?? []), row.transaction_id])
      const pids = [...byPartition.keys()]
      const acked = await db.query(
        'SELECT * FROM queen.ack_leases_drained($1::uuid[], $2::text[], $3::uuid[], $4::integer[], $5::text[])',
        [
          pids,
          pids.map(() => '__QUEUE_MODE__'),
          pids.map(() => lease),
          pids.map((pid) => byPartition.get(pid)!.length),
          pids.flatMap((pid) => byPartition.get(pid)!),
        ],
      )
      expect(acked.rows.every((row) => row.applied)).toBe(true)
      return rows.length
    }
    // A pop whose message is acked through the general path (a retry).
    const retryOne = async () => {
      const single = randomUUID()
      const [one] = (
        await db.query(
          `SELECT * FROM queen.pop_messages($1, NULL, '__QUEUE_MODE__', 1, 1, $2, false, NULL, NULL) WHERE kind = 'message'`,
          [await queue(), single],
        )
      ).rows
      const item = {
        i: 0,
        t: '',
        pid: one.partition_id,
        tx: one.transaction_id,
        g: '__QUEUE_MODE__',
        l: single,
        st: 'retry',
      }
      const acked = await db.query('SELECT * FROM queen.ack_messages($1::jsonb)', [JSON.stringify([item])])
      expect(acked.rows[0].success).toBe(true)
    }
    // The plans are made while consumer rows and per-message states are few and freshly analyzed...
    await pushWide(3, 'seed')
    await pushWide(3, 'seed2')
    // (the first test's consumer row removed: the statistics say the table is empty, as on a new database)
    await db.query('DELETE FROM queen.consumers')
    await db.query('VACUUM ANALYZE queen.consumers')
    await db.query('VACUUM ANALYZE queen.message_states')
    expect(await popAndAck(3)).toBe(6)
    await pushWide(1, 'seed3')
    await retryOne()
    // ...then thousands of partitions and states arrive (states of another group: none of them is this pop's).
    await pushWide(3000, 'grow')
    await db.query(
      `INSERT INTO queen.message_states (partition_id, consumer_group, position, failures)
       SELECT p.id, 'other', 1, 1 FROM queen.partitions p WHERE p.queue_id = $1`,
      [await queue()],
    )
    // The first wildcard pop after the growth creates consumer rows for the stamped partitions; pushing to
    // them again makes the next pops raise those existing rows (a second path of queen.refresh_ready).
    await popAndAck(50)
    await pushWide(3000, 'again')
    const used = await allPlansOf(async () => {
      await popAndAck(50)
      await retryOne()
    }, true)
    const consumerScans = scansOf(used, 'consumers')
    const stateScans = scansOf(used, 'message_states')
    expect(consumerScans.length).toBeGreaterThan(0)
    expect(stateScans.length).toBeGreaterThan(0)
    // A read of consumer rows names its partitions (or its (partition, group) key), or starts at a key of the
    // ready index; a read of states names its partitions. Anything else reads every row of the group.
    expect(
      consumerScans.filter(
        (scan) =>
          !/Index Cond: \(+(?:partition_id =|ROW\(partition_id, consumer_group\) >=)|ROW\(COALESCE\(last_served_at/.test(
            scan,
          ),
      ),
    ).toEqual([])
    expect(stateScans.filter((scan) => !/Index Cond: \(+partition_id =/.test(scan))).toEqual([])
    // A read repeated once per partition names that partition alone: one that also carried the array of all
    // of them had PostgreSQL sort the whole array at every repetition (quadratic: raising 20,000 rows took
    // 11.7 s instead of 0.6).
    const repeatedArrayReads = [...consumerScans, ...stateScans].filter(
      (scan) => /loops=(?:[2-9]|\d{2,})\)/.test(scan) && /= ANY \(/.test(scan),
    )
    expect(consumerScans.some((scan) => /loops=/.test(scan))).toBe(true)
    expect(repeatedArrayReads).toEqual([])
    expect(await jitCompiledStatements(used)).toEqual([])
  })
})

describe('plans made on a database never analyzed', () => {
  const fresh = useTestDatabase('plans_fresh')

  it("push looks each transaction id up by partition and id, not the partition's every message", async () => {
    const db = fresh.client()
    // A new database: no statistics yet, and none arriving during the test.
    await db.query('ALTER TABLE queen.messages SET (autovacuum_enabled = false)')
    const stats = await db.query<{ reltuples: number }>(
      `SELECT reltuples FROM pg_class WHERE oid = 'queen.messages'::regclass`,
    )
    expect(stats.rows[0]!.reltuples).toBe(-1)
    const pushOne = async (tx: string) => {
      const item = { i: 0, q: 'fresh', p: 'p1', id: randomUUID(), tx, pl: { pad: 'x'.repeat(100) } }
      await db.query(`SELECT count(*) FROM queen.push_messages('', $1::jsonb)`, [JSON.stringify([item])])
    }
    // Pushes of one message while the partition holds a few hundred make and cache the session's generic
    // plan (after five), then the partition grows, as in the first seconds of a new deployment.
    const grow = async (count: number, prefix: string) =>
      db.query(
        `SELECT count(*) FROM queen.push_messages('', (SELECT jsonb_agg(jsonb_build_object('i', n, 'q', 'fresh',
           'p', 'p1', 'id', gen_random_uuid(), 'tx', $2 || n, 'pl', '{}'::jsonb)) FROM generate_series(0, $1 - 1) n))`,
        [count, prefix],
      )
    await grow(500, 'first-')
    for (let n = 0; n < 8; n++) await pushOne(`seed-${n}`)
    await grow(5000, 'grow-')

    const seen: string[] = []
    const onNotice = (notice: { message?: string }) => {
      if (notice.message?.includes('plan:')) seen.push(notice.message)
    }
    db.on('notice', onNotice)
    for (const setting of [
      `LOAD 'auto_explain'`,
      'SET auto_explain.log_min_duration = 0',
      'SET auto_explain.log_nested_statements = on',
      'SET auto_explain.log_level = notice',
      'SET client_min_messages = notice',
    ])
      await db.query(setting)
    await pushOne('probe')
    await db.query('SET auto_explain.log_min_duration = -1')
    db.off('notice', onNotice)

    // Every read of messages in the push names the transaction id in its index condition: one by partition
    // alone reads the partition's every message, on every push.
    const conditions = seen.flatMap((plan) =>
      [
        ...plan.matchAll(
          /(?:Bitmap Heap Scan on messages\b[^\n]*\n\s+Recheck Cond|Index (?:Only )?Scan (?:Backward )?using \w+ on messages\b[^\n]*\n\s+Index Cond): ([^\n]*)/g,
        ),
      ].map((scan) => scan[1]!),
    )
    expect(conditions.length).toBeGreaterThan(0)
    expect(conditions.filter((condition) => !/transaction_id =/.test(condition))).toEqual([])
    expect(seen.join('\n')).not.toMatch(/Seq Scan on messages/)
  })
})

describe('the lease-reclaim cycle', () => {
  it('reads only the expired leases, however many consumer rows and live leases there are', async () => {
    const db = testDatabase.client()
    const queueId = randomUUID()
    // 20,000 consumer rows of a queue, 5,000 of them leased for another hour, two expired a minute ago;
    // analyzed while a quarter of the rows is leased, as during a busy drain.
    await db.query(
      `INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, lease_id, lease_expires_at, lease_to)
       SELECT gen_random_uuid(), 'reclaim', $1, CASE WHEN n <= 5000 THEN gen_random_uuid() END,
              CASE WHEN n <= 5000 THEN now() + interval '1 hour' END, CASE WHEN n <= 5000 THEN 1 END
       FROM generate_series(1, 20000) AS n`,
      [queueId],
    )
    const expireTwo = () =>
      db.query(
        `INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, lease_id, lease_expires_at, lease_to)
         SELECT gen_random_uuid(), 'reclaim', $1, gen_random_uuid(), now() - interval '1 minute' * n, 0
         FROM generate_series(1, 2) AS n`,
        [queueId],
      )
    await expireTwo()
    await db.query('ANALYZE queen.consumers')
    try {
      let reclaimed: { partition_id: string }[] = []
      const used = await allPlansOf(async () => {
        reclaimed = (await db.query('SELECT * FROM queen.reclaim_expired_leases(100)')).rows
      }, true)
      expect(reclaimed).toHaveLength(2)
      // The broker's sessions soon run the cycle with the generic plan: the same read, its bound a parameter.
      await expireTwo()
      await db.query('SET plan_cache_mode = force_generic_plan')
      const generic = await allPlansOf(async () => {
        reclaimed = (await db.query('SELECT * FROM queen.reclaim_expired_leases(100)')).rows
      }, true)
      await db.query('RESET plan_cache_mode')
      expect(reclaimed).toHaveLength(2)
      for (const plans of [used, generic]) {
        const scans = scansOf(plans, 'consumers').filter((scan) => /lease_expires_at/.test(scan))
        expect(scans.length).toBeGreaterThan(0)
        // Read by expiry: the two expired rows, not a walk over the live leases or every row.
        for (const scan of scans) {
          expect(scan).toMatch(/using consumers_lease_expiry_idx/)
          expect(scan).toMatch(/actual time=\S+ rows=2 loops=1\) \| Index Cond: \(lease_expires_at <=/)
        }
      }
    } finally {
      await db.query(`DELETE FROM queen.consumers WHERE queue_id = $1`, [queueId])
    }
  })
})

describe('functions that disable a plan node', () => {
  it('also turn JIT off, since the node they keep is estimated far above jit_above_cost', async () => {
    const { rows } = await testDatabase.client().query<{ name: string; config: string[] }>(
      `SELECT p.proname AS name, p.proconfig AS config FROM pg_proc p
       WHERE p.pronamespace = 'queen'::regnamespace AND p.proconfig::text LIKE '%enable\\_%=off%'`,
    )
    expect(rows.length).toBeGreaterThanOrEqual(6)
    expect(rows.filter((row) => !row.config.includes('jit=off')).map((row) => row.name)).toEqual([])
  })
})
