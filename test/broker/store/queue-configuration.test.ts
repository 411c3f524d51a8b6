import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultQueueOptions } from '../../../src/broker/engine/queue-options.js'
import type { Hint } from '../../../src/broker/db/hint-channel.js'
import { configureQueue, deleteQueue } from '../../../src/broker/store/queue-configuration.js'
import { startTestBroker, type TestBroker } from '../../support/broker.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'store-queue-configuration' })
})
afterAll(async () => {
  await broker.close()
})

/** The store's dependencies on the test broker's pool and registry, with hints and ended queues recorded. */
function recordingDependencies() {
  const hints: Hint[] = []
  const endedQueues: { tenant: string; queue: string }[] = []
  return {
    hints,
    endedQueues,
    deps: {
      pool: broker.db,
      registry: broker.services.registry,
      hints: { publish: (hint: Hint) => hints.push(hint) },
      waiters: { endQueue: (tenant: string, queue: string) => endedQueues.push({ tenant, queue }) },
    },
  }
}

describe('configureQueue', () => {
  it('stores the options, drops the cached record and tells the other replicas', async () => {
    const { deps, hints } = recordingDependencies()
    const registry = broker.services.registry
    // Given a queue whose record this replica has cached
    const first = await configureQueue(deps, {
      tenant: '',
      queue: 'store.conf',
      namespace: 'ns',
      task: 't',
      options: { ...defaultQueueOptions(), leaseTime: 60 },
    })
    expect((await registry.get('', 'store.conf'))?.leaseTimeSeconds).toBe(60)

    // When it is configured again
    const second = await configureQueue(deps, {
      tenant: '',
      queue: 'store.conf',
      namespace: 'ns',
      task: 't',
      options: { ...defaultQueueOptions(), leaseTime: 120 },
    })

    // Then the same queue and partition answer, the cache entry is gone and the next read sees the change
    expect(second).toEqual(first)
    expect(registry.peek('', 'store.conf')).toBeUndefined()
    expect((await registry.get('', 'store.conf'))?.leaseTimeSeconds).toBe(120)
    expect(hints).toEqual([
      { type: 'CONFIG_INVALIDATE', tenant: '', queue: 'store.conf' },
      { type: 'CONFIG_INVALIDATE', tenant: '', queue: 'store.conf' },
    ])
  })
})

describe('deleteQueue', () => {
  it('removes the queue, drops the cached record, tells the other replicas and ends the parked pops', async () => {
    const { deps, hints, endedQueues } = recordingDependencies()
    const registry = broker.services.registry
    await configureQueue(deps, {
      tenant: '',
      queue: 'store.doomed',
      namespace: '',
      task: '',
      options: defaultQueueOptions(),
    })
    await registry.get('', 'store.doomed')

    expect(await deleteQueue(deps, { tenant: '', queue: 'store.doomed' })).toBe(true)

    expect(registry.peek('', 'store.doomed')).toBeUndefined()
    const rows = await broker.db.query("SELECT 1 FROM queen.queues WHERE name = 'store.doomed'")
    expect(rows.rowCount).toBe(0)
    expect(hints.at(-1)).toEqual({ type: 'CONFIG_INVALIDATE', tenant: '', queue: 'store.doomed' })
    expect(endedQueues).toEqual([{ tenant: '', queue: 'store.doomed' }])
    // A second delete finds nothing, and still announces it.
    expect(await deleteQueue(deps, { tenant: '', queue: 'store.doomed' })).toBe(false)
    expect(endedQueues).toHaveLength(2)
  })
})
