/**
 * The Go queenctl compatibility tier, part two (docs/cli.md, "Compatibility with the Go queenctl"): every verb of the
 * Go README's command index that readme.test.ts does not run, the README's configuration precedence, output and
 * shell-completion lines, and the examples of the Go CLI's `--help` (push, ack, tail, queue configure, partition,
 * completion), each run unchanged through /bin/sh against a live broker and checked on stdout, stderr, the exit code
 * and, for what writes, the broker's state afterwards.
 */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { expectUsageError, goShell, ndjson, type GoShell } from '../support/go-shell.js'

let broker: TestBroker
let shell: GoShell
const sh = (line: string, env?: Record<string, string>) => shell.sh(line, env)

beforeAll(async () => {
  broker = await startTestBroker({ label: 'compat_cli_index' })
  shell = await goShell('queenctl-compat-index-')
  const set = await sh(`queenctl config set-context local --server ${broker.url}`)
  expect(set.code, set.stderr).toBe(0)
})
afterAll(async () => {
  await broker.close()
})

/** The broker's message total of each partition of `queue`. */
async function partitionTotals(queue: string): Promise<Record<string, number>> {
  const answer = await http(broker, 'GET', `/api/v1/resources/queues/${queue}`)
  return Object.fromEntries(
    answer.body.partitions.map((row: { name: string; stats: { total: number } }) => [row.name, row.stats.total]),
  )
}

/** Pushes `count` messages to `queue` through the CLI; each payload is {n}. */
async function pushed(queue: string, count: number, partition?: string): Promise<void> {
  const lines = Array.from({ length: count }, (_, index) => `{"n":${index + 1}}`).join('\\n')
  const run = await sh(`printf '${lines}\\n' | queenctl push ${queue}${partition ? ` --partition ${partition}` : ''}`)
  expect(run, run.stderr).toEqual({ code: 0, stdout: `queued=${count} duplicate=0 failed=0\n`, stderr: '' })
}

describe('the examples of the Go queenctl push --help', () => {
  it('cat events.ndjson | push --batch 500 --partition-key user_id; push --data \'{"id":1}\'; push --file', async () => {
    await writeFile(path.join(shell.home, 'events.ndjson'), '{"user_id":"u1"}\n{"user_id":"u2"}\n{"user_id":"u1"}\n')
    const piped = await sh('cat events.ndjson | queenctl push events --batch 500 --partition-key user_id')
    expect(piped).toEqual({ code: 0, stdout: 'queued=3 duplicate=0 failed=0\n', stderr: '' })
    expect(await partitionTotals('events')).toEqual({ u1: 2, u2: 1 })
    expect(await sh(`queenctl push orders --data '{"id":1}'`)).toEqual({
      code: 0,
      stdout: 'queued=1 duplicate=0 failed=0\n',
      stderr: '',
    })
    expect(await sh('queenctl push orders --file events.ndjson')).toEqual({
      code: 0,
      stdout: 'queued=3 duplicate=0 failed=0\n',
      stderr: '',
    })
    expect(await partitionTotals('orders')).toEqual({ Default: 4 })
  })
})

describe('the examples of the Go queenctl ack and tail --help', () => {
  it('tail q --cg c -n 100 | queenctl ack --batch - (no --cg on ack: the lease names the group)', async () => {
    await pushed('acked', 3)
    const run = await sh('queenctl tail acked --cg c -n 100 | queenctl ack --batch -')
    expect(run).toEqual({ code: 0, stdout: 'ok=3 failed=0\n', stderr: '' })
    // Acked for group c: nothing left for it once the leases would have expired.
    expect((await sh('queenctl tail acked --cg c --idle-millis 500')).code).toBe(4)
  })

  it('tail --concurrency N (the Go flag) prints every message once', async () => {
    for (const partition of ['a', 'b', 'c']) await pushed('fanned', 2, partition)
    const run = await sh('queenctl tail fanned --cg fan --concurrency 3 --auto-ack --idle-millis 1500')
    expect(run.code, run.stderr).toBe(0)
    const rows = ndjson(run.stdout)
    expect(rows).toHaveLength(6)
    expect(new Set(rows.map((row) => row.transactionId)).size).toBe(6)
    expect((await sh('queenctl tail fanned --cg fan --idle-millis 500')).code).toBe(4)
  })
})

describe('partition of the Go queenctl command index', () => {
  it('partition describe; partition clear asks for --yes off a terminal, then clears that partition only', async () => {
    await pushed('parts', 2, 'left')
    await pushed('parts', 1, 'right')
    const described = await sh('queenctl partition describe parts left -o json')
    expect(described.code, described.stderr).toBe(0)
    expect(JSON.parse(described.stdout)).toMatchObject({ queue: 'parts', name: 'left' })
    expectUsageError(await sh('queenctl partition clear parts left'), 'without --yes')
    expect(await partitionTotals('parts')).toEqual({ left: 2, right: 1 })
    const dry = await sh('queenctl p clear parts left --dry-run -o table')
    expect(dry).toEqual({ code: 0, stdout: '', stderr: 'would delete 2 message(s) of partition left of queue parts\n' })
    const cleared = await sh('queenctl partition clear parts left --yes -o table')
    expect(cleared).toEqual({
      code: 0,
      stdout: '',
      stderr: 'cleared partition left of queue parts: 2 message(s) deleted\n',
    })
    expect(await partitionTotals('parts')).toEqual({ left: 0, right: 1 })
  })
})

describe('queue of the Go queenctl command index and queue configure --help', () => {
  it('queue configure orders --lease-time 60 changes the lease and nothing else', async () => {
    const first = await sh('queenctl queue configure cfg --retry-limit 7')
    expect(first.code, first.stderr).toBe(0)
    const run = await sh('queenctl queue configure cfg --lease-time 60')
    expect(run.code, run.stderr).toBe(0)
    const options = (await http(broker, 'GET', '/api/v1/resources/queues/cfg')).body.options
    expect(options).toMatchObject({ leaseTime: 60, retryLimit: 7 })
  })

  it('queue configure orders --dlq=false stops dead-lettering; --dlq starts it again', async () => {
    const dlq = async () => (await http(broker, 'GET', '/api/v1/resources/queues/cfg')).body.options.deadLetterQueue
    const off = await sh('queenctl queue configure cfg --dlq=false')
    expect(off.code, off.stderr).toBe(0)
    expect(await dlq()).toBe(false)
    const on = await sh('queenctl queue configure cfg --dlq')
    expect(on.code, on.stderr).toBe(0)
    expect(await dlq()).toBe(true)
    // Only that option changed.
    expect((await http(broker, 'GET', '/api/v1/resources/queues/cfg')).body.options).toMatchObject({
      leaseTime: 60,
      retryLimit: 7,
    })
  })

  it('queue list --limit and --offset (the Go flags) page the newest-first list', async () => {
    for (const name of ['paged-a', 'paged-b', 'paged-c'])
      expect((await sh(`queenctl queue configure ${name}`)).code).toBe(0)
    const all = JSON.parse((await sh('queenctl queue list -o json')).stdout).map((row: { name: string }) => row.name)
    expect(all.length).toBeGreaterThanOrEqual(3)
    const page = await sh('queenctl queue list --limit 2 --offset 1 -o json')
    expect(page.code, page.stderr).toBe(0)
    expect(JSON.parse(page.stdout).map((row: { name: string }) => row.name)).toEqual(all.slice(1, 3))
  })

  it('queue clear --yes and queue delete --yes', async () => {
    await pushed('doomed', 2)
    expect((await sh('queenctl queue clear doomed --yes')).code).toBe(0)
    expect(await partitionTotals('doomed')).toEqual({ Default: 0 })
    expect((await sh('queenctl queue delete doomed --yes')).code).toBe(0)
    expect((await http(broker, 'GET', '/api/v1/resources/queues/doomed')).status).toBe(404)
  })
})

describe('messages, dlq, traces and lease of the Go queenctl command index', () => {
  it('messages list, get, traces, dlq, then dlq list, describe, requeue, drain; messages delete', async () => {
    await pushed('msgs', 2)
    const listed = JSON.parse((await sh('queenctl messages list --queue msgs')).stdout) as {
      partitionId: string
      transactionId: string
    }[]
    expect(listed).toHaveLength(2)
    const [first, second] = listed as [(typeof listed)[0], (typeof listed)[0]]
    const address = (row: typeof first) => `${row.partitionId} ${row.transactionId}`
    const got = await sh(`queenctl messages get ${address(first)} -o json`)
    expect(JSON.parse(got.stdout)).toMatchObject({ transactionId: first.transactionId })
    expect((await sh(`queenctl messages traces ${address(first)}`)).code).toBe(0)
    expect((await sh(`queenctl traces by-message ${address(first)}`)).code).toBe(0)
    expect((await sh('queenctl traces by-name checkout')).code).toBe(0)

    for (const row of [first, second]) {
      const moved = await sh(`queenctl messages dlq ${address(row)} --error manual --yes`)
      expect(moved.code, moved.stderr).toBe(0)
    }
    const dead = JSON.parse((await sh('queenctl dlq list --queue msgs')).stdout) as { transactionId: string }[]
    expect(dead.map((row) => row.transactionId).sort()).toEqual([first.transactionId, second.transactionId].sort())
    const described = await sh(`queenctl dlq describe ${address(first)} -o json`)
    expect(described.code, described.stderr).toBe(0)
    const requeued = await sh('queenctl dlq requeue --queue msgs --yes')
    expect(requeued).toEqual({ code: 0, stdout: 'requeued=2 errors=0\n', stderr: '' })
    expect(JSON.parse((await sh('queenctl dlq list --queue msgs')).stdout)).toEqual([])

    // The Go form: dlq retry (or requeue) PARTITIONID TRANSACTIONID, one message, the others left dead-lettered.
    for (const row of [first, second]) await sh(`queenctl messages dlq ${address(row)} --error again --yes`)
    const one = await sh(`queenctl dlq retry ${address(first)} --yes`)
    expect(one).toEqual({ code: 0, stdout: 'requeued=1 errors=0\n', stderr: '' })
    const left = JSON.parse((await sh('queenctl dlq list --queue msgs')).stdout) as { transactionId: string }[]
    expect(left.map((row) => row.transactionId)).toEqual([second.transactionId])
    expect((await sh(`queenctl dlq requeue ${address(first)} --yes`)).code).toBe(4)

    const drained = await sh('queenctl dlq drain --queue msgs --yes')
    expect(drained).toEqual({ code: 0, stdout: 'processed=1 errors=0\n', stderr: '' })
    expect((await sh('queenctl dlq drain --queue msgs --yes')).code).toBe(4)

    expect((await sh(`queenctl messages delete ${address(first)} --yes`)).code).toBe(0)
    expect((await http(broker, 'GET', `/api/v1/messages/${first.partitionId}/${first.transactionId}`)).status).toBe(404)
  })

  it('lease extend LEASE renews the lease of a popped message', async () => {
    await pushed('leased', 1)
    const popped = ndjson((await sh('queenctl pop leased')).stdout)[0]!
    const run = await sh(`queenctl lease extend ${String(popped.leaseId)} --seconds 120`)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(new RegExp(`^renewed ${String(popped.leaseId)} -> \\S+\\n$`))
  })
})

describe('cg, maintenance and analytics of the Go queenctl command index', () => {
  it('cg describe, cg refresh-stats, cg delete --yes (the group starts afresh)', async () => {
    await pushed('groups', 2)
    await sh('queenctl tail groups --cg readers --auto-ack --idle-millis 500')
    const described = await sh('queenctl cg describe readers -o json')
    expect(described.code, described.stderr).toBe(0)
    expect(JSON.parse(described.stdout)).toHaveProperty('groups')
    expect((await sh('queenctl cg refresh-stats')).code).toBe(0)
    const deleted = await sh('queenctl cg delete readers --queue groups --yes')
    expect(deleted.code, deleted.stderr).toBe(0)
    expect(ndjson((await sh('queenctl tail groups --cg readers --idle-millis 500')).stdout)).toHaveLength(2)
  })

  it('maintenance get, on, off', async () => {
    const on = await sh('queenctl maintenance on --yes')
    expect(on.code, on.stderr).toBe(0)
    expect(JSON.parse((await sh('queenctl maintenance get -o json')).stdout)).toMatchObject({ maintenanceMode: true })
    expect((await sh('queenctl maintenance off')).code).toBe(0)
    expect(JSON.parse((await sh('queenctl maintenance get -o json')).stdout)).toMatchObject({
      maintenanceMode: false,
    })
  })

  it('maintenance --pop (the Go flag) and the maint alias', async () => {
    const on = await sh('queenctl maintenance on --pop --yes')
    expect(on.code, on.stderr).toBe(0)
    expect(JSON.parse((await sh('queenctl maint get -o json')).stdout)).toMatchObject({
      maintenanceMode: false,
      popMaintenanceMode: true,
    })
    expect((await sh('queenctl maintenance off --pop')).code).toBe(0)
    expect(JSON.parse((await sh('queenctl maint get -o json')).stdout)).toMatchObject({ popMaintenanceMode: false })
  })

  for (const verb of ['queue-lag', 'queue-ops', 'queue-parked', 'retention', 'system', 'worker', 'postgres']) {
    it(`analytics ${verb}`, async () => {
      const run = await sh(`queenctl analytics ${verb} -o json`)
      expect(run.code, run.stderr).toBe(0)
      expect(() => JSON.parse(run.stdout) as unknown).not.toThrow()
    })
  }
})

describe('configuration, output and completion lines of the Go queenctl README', () => {
  it('QUEEN_CONTEXT, QUEEN_SERVER and --server in the order of the README precedence', async () => {
    await sh('queenctl config set-context nowhere --server http://127.0.0.1:9')
    // QUEEN_CONTEXT beats current-context; QUEEN_SERVER beats the context; --server beats QUEEN_SERVER.
    expect((await sh('queenctl ping', { QUEEN_CONTEXT: 'nowhere' })).code).toBe(2)
    expect((await sh('queenctl ping', { QUEEN_CONTEXT: 'nowhere', QUEEN_SERVER: broker.url })).code).toBe(0)
    const flag = await sh(`queenctl --server ${broker.url} ping`, { QUEEN_SERVER: 'http://127.0.0.1:9' })
    expect(flag.code, flag.stderr).toBe(0)
  })

  it('config use-context and delete-context', async () => {
    expect((await sh('queenctl config use-context nowhere')).code).toBe(0)
    expect(await sh('queenctl config current-context')).toEqual({ code: 0, stdout: 'nowhere\n', stderr: '' })
    expect((await sh('queenctl config use-context local')).code).toBe(0)
    expect((await sh('queenctl config delete-context nowhere')).code).toBe(0)
    const names = JSON.parse((await sh('queenctl config get-contexts -o json')).stdout).map(
      (context: { name: string }) => context.name,
    )
    expect(names).toEqual(['local'])
  })

  it('-o jsonpath=.queues[0].name, the README form, names the first queue', async () => {
    const names = JSON.parse((await sh('queenctl queue list -o json')).stdout).map((row: { name: string }) => row.name)
    expect(await sh('queenctl queue list -o jsonpath=.queues[0].name')).toEqual({
      code: 0,
      stdout: `${names[0]}\n`,
      stderr: '',
    })
  })

  it('completion bash|zsh|fish|powershell > file, each a script naming the commands', async () => {
    const lines = {
      bash: 'queenctl completion bash       > queenctl.bash',
      zsh: 'queenctl completion zsh        > _queenctl',
      fish: 'queenctl completion fish       > queenctl.fish',
      powershell: 'queenctl completion powershell > queenctl.ps1',
    }
    for (const [shellName, line] of Object.entries(lines)) {
      const run = await sh(line)
      expect(run, shellName).toEqual({ code: 0, stdout: '', stderr: '' })
    }
    const ps1 = await sh('cat queenctl.ps1')
    expect(ps1.stdout).toContain("Register-ArgumentCompleter -Native -CommandName 'queenctl'")
    expect(ps1.stdout).toMatch(/^ {4}'' = @\(.*'partition'.*'push'.*'tail'/m)
    // The completion --help line for bash, in a real bash: the function answers for queenctl.
    const bash = await sh(`bash -c 'source <(queenctl completion bash); complete -p queenctl'`)
    expect(bash).toEqual({ code: 0, stdout: 'complete -o default -F _queenctl_complete queenctl\n', stderr: '' })
  })
})

describe('the examples of the Go queenctl replay --help', () => {
  it("--to 'beginning' / 'earliest', 'now' / 'end' / 'latest', an RFC 3339 time, and --dry-run", async () => {
    await pushed('replays', 3)
    const consumed = async () => ndjson((await sh('queenctl tail replays --cg r --auto-ack --idle-millis 500')).stdout)
    expect(await consumed()).toHaveLength(3)
    for (const start of ['beginning', 'earliest', '2000-01-01T00:00:00Z']) {
      const run = await sh(`queenctl replay replays --cg r --to '${start}'`)
      expect(run.code, run.stderr).toBe(0)
      expect(await consumed(), start).toHaveLength(3)
    }
    for (const head of ['now', 'end', 'latest']) {
      await sh("queenctl replay replays --cg r --to 'beginning'")
      const run = await sh(`queenctl replay replays --cg r --to '${head}'`)
      expect(run.code, run.stderr).toBe(0)
      expect(await consumed(), head).toHaveLength(0)
    }
    const dry = await sh("queenctl replay replays --cg r --to 'beginning' --dry-run")
    expect(dry.code, dry.stderr).toBe(0)
    expect(await consumed()).toHaveLength(0)
  })
})

describe('the flags of the Go queenctl status --help', () => {
  it('status --namespace and --task narrow the summary; status QUEUE --partitions lists its partitions', async () => {
    expect((await sh('queenctl queue configure billed --namespace billing --task invoices')).code).toBe(0)
    await pushed('billed', 2, 'eu')
    await pushed('unbilled', 1)
    const names = async (line: string) => {
      const run = await sh(line)
      expect(run.code, run.stderr).toBe(0)
      return (JSON.parse(run.stdout) as { queues: { name: string }[] }).queues.map((queue) => queue.name)
    }
    expect(await names('queenctl status --namespace billing -o json')).toEqual(['billed'])
    expect(await names('queenctl status --task invoices -o json')).toEqual(['billed'])
    expect(await names('queenctl status -o json')).toEqual(expect.arrayContaining(['billed', 'unbilled']))
    // The counters come from the statistics snapshot: recompute it now.
    expect((await sh('queenctl cg refresh-stats')).code).toBe(0)
    const one = await sh('queenctl status billed --partitions -o table')
    expect(one.code, one.stderr).toBe(0)
    expect(one.stdout).toMatch(/^PARTITION +PENDING/m)
    expect(one.stdout).toMatch(/^eu +2 /m)
    expectUsageError(await sh('queenctl status billed --namespace billing'), '--namespace and --task')
  })
})
