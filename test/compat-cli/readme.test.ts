/**
 * The Go queenctl compatibility tier (issue 37; docs/cli.md, "Compatibility with the Go queenctl"): the command lines
 * of the Go CLI's README and of the examples in its --help, run unchanged through /bin/sh with `queenctl` on PATH
 * (the built bin/run.js) against a live broker, each checked on stdout, stderr and the exit code. Global flags are
 * run both before and after the subcommand. A deliberate difference is listed in the table of docs/cli.md, not here.
 */
import { writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { goQueueDocument } from '../support/go-manifest.js'
import { expectUsageError, goShell, ndjson, type GoShell } from '../support/go-shell.js'

let broker: TestBroker
let shell: GoShell
let home: string
let bin: string
const sh = (line: string, env?: Record<string, string>) => shell.sh(line, env)

beforeAll(async () => {
  broker = await startTestBroker({ label: 'compat_cli' })
  shell = await goShell('queenctl-compat-cli-')
  home = shell.home
  bin = shell.bin
})
afterAll(async () => {
  await broker.close()
})

describe('the Quick start of the Go queenctl README', () => {
  it('config set-context, ping, push from a pipe, tail back', async () => {
    const set = await sh(`queenctl config set-context local --server ${broker.url}`)
    expect(set.code, set.stderr).toBe(0)
    expect(set.stderr).toContain('context "local"')
    const ping = await sh('queenctl ping')
    expect(ping.code, ping.stderr).toBe(0)
    expect(JSON.parse(ping.stdout)).toMatchObject({ server: broker.url, status: 'healthy' })
    const push = await sh(`echo '{"hello":"world"}' | queenctl push demo`)
    expect(push).toEqual({ code: 0, stdout: 'queued=1 duplicate=0 failed=0\n', stderr: '' })
    const tail = await sh('queenctl tail demo --cg dev --follow --idle-millis 1500')
    expect(tail.code, tail.stderr).toBe(0)
    expect(ndjson(tail.stdout).map((row) => row.data)).toEqual([{ hello: 'world' }])
  })
})

describe('the opening lines of the Go queenctl README', () => {
  it("tail orders --cg debug --follow | jq '.data'", async () => {
    await sh(`printf '{"id":1}\\n{"id":2}\\n' | queenctl push orders`)
    const run = await sh(`queenctl tail orders --cg debug --follow --idle-millis 1500 | jq -c '.data'`)
    expect(run).toEqual({ code: 0, stdout: '{"id":1}\n{"id":2}\n', stderr: '' })
  })

  it('push events --batch 500 --partition-key user_id < events.ndjson', async () => {
    await writeFile(path.join(home, 'events.ndjson'), '{"user_id":"u1","n":1}\n{"user_id":"u2","n":2}\n{"n":3}\n')
    const run = await sh('queenctl push events --batch 500 --partition-key user_id < events.ndjson')
    expect(run).toEqual({ code: 0, stdout: 'queued=3 duplicate=0 failed=0\n', stderr: '' })
    const partitions = await sh('queenctl partition list events -o json')
    expect(
      JSON.parse(partitions.stdout)
        .map((row: { name: string }) => row.name)
        .sort(),
    ).toEqual(['Default', 'u1', 'u2'])
  })

  it("replay orders --cg analyzer --to '15m ago' runs from a script without --yes", async () => {
    await sh('queenctl tail orders --cg analyzer --auto-ack --idle-millis 1000')
    const run = await sh("queenctl replay orders --cg analyzer --to '15m ago'")
    expect(run.code, run.stderr).toBe(0)
    const again = await sh('queenctl tail orders --cg analyzer --idle-millis 1000')
    expect(ndjson(again.stdout)).toHaveLength(2)
  })

  it('status, lag --min-seconds 30, and lag listing every group', async () => {
    const status = await sh('queenctl status')
    expect(status.code, status.stderr).toBe(0)
    expect(JSON.parse(status.stdout)).toBeTypeOf('object')
    const alert = await sh('queenctl lag --min-seconds 30')
    expect(alert.code, alert.stderr).toBe(0)
    // Only partitions lagging 30 s or more (none, unless this run is slow enough for the unacked ones to get there).
    for (const row of JSON.parse(alert.stdout) as { time_lag_seconds: number }[]) {
      expect(row.time_lag_seconds).toBeGreaterThanOrEqual(30)
    }
    const every = await sh('queenctl lag')
    expect(JSON.parse(every.stdout).map((row: { name: string }) => row.name)).toEqual(
      expect.arrayContaining(['dev', 'debug', 'analyzer']),
    )
  })
})

describe('global flags before and after the subcommand', () => {
  for (const line of [
    'queenctl --server SERVER ping',
    'queenctl ping --server SERVER',
    'queenctl --server SERVER -o json ping',
    'queenctl --context local ping',
    'queenctl ping --context local',
  ]) {
    it(line, async () => {
      const run = await sh(line.replace('SERVER', broker.url))
      expect(run.code, run.stderr).toBe(0)
      expect(JSON.parse(run.stdout)).toMatchObject({ status: 'healthy' })
    })
  }

  it('-o before the subcommand picks the format of every output form', async () => {
    const before = await sh('queenctl -o yaml queue list')
    const after = await sh('queenctl queue list -o yaml')
    expect(before).toEqual(after)
    expect(before.stdout).toMatch(/name: orders/)
  })

  it('a global flag a command does not read is taken and ignored', async () => {
    const run = await sh(`queenctl --server ${broker.url} config current-context`)
    expect(run).toEqual({ code: 0, stdout: 'local\n', stderr: '' })
  })
})

describe('global flags before and after a data-plane command', () => {
  it('push and pop take --server, --context and -o on either side', async () => {
    const before = await sh(`echo '{"g":1}' | queenctl --server ${broker.url} -o table push globals`)
    const after = await sh(`echo '{"g":2}' | queenctl push globals --server ${broker.url} -o table`)
    expect(before).toEqual({ code: 0, stdout: 'queued=1 duplicate=0 failed=0\n', stderr: '' })
    expect(after).toEqual(before)
    const popBefore = await sh('queenctl --context local -o json pop globals --cg g --auto-ack')
    const popAfter = await sh('queenctl pop globals --cg g --auto-ack --context local -o json')
    expect(JSON.parse(popBefore.stdout).map((row: { data: unknown }) => row.data)).toEqual([{ g: 1 }])
    expect(JSON.parse(popAfter.stdout).map((row: { data: unknown }) => row.data)).toEqual([{ g: 2 }])
  })

  it('--timeout before pop is the long-poll there too; --wait=false before or after', async () => {
    const started = Date.now()
    expect((await sh('queenctl --timeout 1s pop globals --cg g')).code).toBe(4)
    expect(Date.now() - started).toBeLessThan(15_000)
    expect((await sh('queenctl pop globals --cg g --wait=false --server ' + broker.url)).code).toBe(4)
  })
})

describe('output formats of the README', () => {
  it('-o table, wide, json, ndjson, yaml and jsonpath=', async () => {
    const table = await sh('queenctl queue list -o table')
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME +PARTITIONS/)
    const wide = await sh('queenctl queue list -o wide')
    expect(wide.stdout.split('\n')[0]!.length).toBeGreaterThan(table.stdout.split('\n')[0]!.length)
    const json = JSON.parse((await sh('queenctl queue list -o json')).stdout) as { name: string }[]
    const lines = ndjson((await sh('queenctl queue list -o ndjson')).stdout)
    expect(lines.map((row) => row.name)).toEqual(json.map((row) => row.name))
    const first = await sh('queenctl queue list -o jsonpath=[0].name')
    expect(first).toEqual({ code: 0, stdout: `${json[0]!.name}\n`, stderr: '' })
    const all = await sh("queenctl queue list -o 'jsonpath={[*].name}'")
    expect(all.stdout).toBe(`${json.map((row) => row.name).join(' ')}\n`)
  })

  it('tail emits NDJSON whatever -o says', async () => {
    await sh(`echo '{"x":1}' | queenctl push fmt`)
    const run = await sh('queenctl tail fmt -o yaml --idle-millis 1000')
    expect(ndjson(run.stdout).map((row) => row.data)).toEqual([{ x: 1 }])
  })
})

describe('exit codes of the README', () => {
  it('0 success, 1 user error, 2 unreachable, 4 successful no-op', async () => {
    expect((await sh('queenctl pop nothing-here --wait=false')).code).toBe(4)
    expectUsageError(await sh('queenctl pop orders --no-such-flag'), '--no-such-flag')
    expectUsageError(await sh('queenctl push'), 'queenctl: ')
    const down = await sh('queenctl --server http://127.0.0.1:9 ping')
    expect(down.code).toBe(2)
    expect(down.stderr).toContain('cannot reach the broker')
  })
})

describe('usage errors', () => {
  it('an unknown command or flag exits 1 with the message on stderr; help <command> prints its help', async () => {
    expect(await sh('queenctl nosuch')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'queenctl: unknown command "nosuch" for "queenctl"\nhint: see queenctl --help for the commands\n',
    })
    expectUsageError(await sh('queenctl --verbose ping'), 'unknown flag: --verbose')
    expectUsageError(await sh('queenctl ping --verbose'), '--verbose')
    const help = await sh('queenctl help push')
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('USAGE')
    expect((await sh('queenctl push --help')).stdout).toBe(help.stdout)
  })

  it('a bad time or duration names the flag and exits 1', async () => {
    expectUsageError(await sh("queenctl replay orders --cg analyzer --to 'yesterday'"), '--to')
    expectUsageError(await sh('queenctl pop orders --timeout soon'), '--timeout')
  })
})

describe('value forms and defaults of the Go queenctl', () => {
  it("seek targets and times: --to '1h30m ago', beginning, end; cg seek and partition seek without --yes", async () => {
    await sh(`printf '{"s":1}\\n{"s":2}\\n' | queenctl push seeks`)
    await sh('queenctl tail seeks --cg s1 --auto-ack --idle-millis 1000')
    const replay = await sh("queenctl replay seeks --cg s1 --to '1h30m ago'")
    expect(replay.code, replay.stderr).toBe(0)
    expect(ndjson((await sh('queenctl tail seeks --cg s1 --idle-millis 1000')).stdout)).toHaveLength(2)
    const end = await sh('queenctl cg seek s1 seeks --to end')
    expect(end.code, end.stderr).toBe(0)
    expect((await sh('queenctl tail seeks --cg s1 --idle-millis 500')).code).toBe(4)
    expect((await sh('queenctl cg seek s1 seeks --to beginning')).code).toBe(0)
    const partition = await sh('queenctl partition seek seeks Default --cg s1')
    expect(partition.code, partition.stderr).toBe(0)
    expect((await sh('queenctl tail seeks --cg s1 --idle-millis 500')).code).toBe(4)
  })

  it('tail --idle 1500 is milliseconds, as --idle-millis', async () => {
    const started = Date.now()
    const run = await sh('queenctl tail nothing-here --follow --idle 1500')
    expect(run).toEqual({ code: 4, stdout: '', stderr: '' })
    expect(Date.now() - started).toBeLessThan(20_000)
  })

  it('ping fails, exit 2, on a 200 that is not a Queen broker', async () => {
    const other: Server = createServer((_request, response) => response.end('ok'))
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = other.address() as AddressInfo
      const run = await sh(`queenctl --server http://127.0.0.1:${port} ping`)
      expect(run.code).toBe(2)
      expect(run.stderr).toContain('not as a Queen broker does')
    } finally {
      await new Promise((resolve) => other.close(resolve))
    }
  })
})

describe('the examples of the Go queenctl --help', () => {
  it('pop orders --auto-ack; pop -n 50 --cg analyzer | jq -s length; pop --wait=false --timeout', async () => {
    await sh(`printf '{"p":1}\\n{"p":2}\\n{"p":3}\\n' | queenctl push pops`)
    const one = await sh('queenctl pop pops --auto-ack')
    expect(one.code, one.stderr).toBe(0)
    expect(ndjson(one.stdout)).toHaveLength(1)
    const counted = await sh("queenctl pop pops -n 50 --cg analyzer | jq -s 'length'")
    expect(counted).toEqual({ code: 0, stdout: '3\n', stderr: '' })
    const started = Date.now()
    const none = await sh('queenctl pop pops --cg analyzer --wait=false --timeout 20s')
    expect(none.code).toBe(4)
    expect(Date.now() - started).toBeLessThan(15_000)
    const fresh = await sh('queenctl pop pops --cg latecomer --from-mode new-only --wait=false')
    expect(fresh.code).toBe(4)
  })

  it('tail q --cg c -n 100 | queenctl ack --batch -, and ack TX --failed', async () => {
    await sh(`printf '{"a":1}\\n{"a":2}\\n' | queenctl push acks`)
    const batch = await sh('queenctl tail acks --cg c -n 100 --idle-millis 1000 | queenctl ack --batch - --cg c')
    expect(batch).toEqual({ code: 0, stdout: 'ok=2 failed=0\n', stderr: '' })
    await sh(`echo '{"a":3}' | queenctl push acks-one`)
    const popped = ndjson((await sh('queenctl pop acks-one')).stdout)[0]!
    const failed = await sh(
      `queenctl ack ${String(popped.transactionId)} --partition-id ${String(popped.partitionId)} --lease-id ${String(popped.leaseId)} --failed --error boom`,
    )
    expect(failed).toEqual({ code: 0, stdout: 'ack ok\n', stderr: '' })
  })

  it('tail src --auto-ack | queenctl push dst --batch 100', async () => {
    await sh(`printf '{"m":1}\\n{"m":2}\\n' | queenctl push src`)
    const run = await sh('queenctl tail src --auto-ack --idle-millis 1000 | queenctl push dst --batch 100')
    expect(run).toEqual({ code: 0, stdout: 'queued=2 duplicate=0 failed=0\n', stderr: '' })
    const moved = ndjson((await sh('queenctl tail dst --idle-millis 1000')).stdout)
    expect(moved.map((row) => (row.data as { data: unknown }).data)).toEqual([{ m: 1 }, { m: 2 }])
    // Acked by --auto-ack: the source has nothing left for that group.
    expect((await sh('queenctl tail src --idle-millis 500')).code).toBe(4)
  })

  it('apply -f - with the flat manifest of the apply --help', async () => {
    const manifest = [
      ...goQueueDocument('orders'),
      '---',
      'kind: ConsumerGroup',
      'name: analyzer',
      'queue: orders',
      'seek-to: beginning',
    ].join('\n')
    const run = await sh(`cat <<'EOF' | queenctl apply -f -\n${manifest}\nEOF`)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toBe('applied Queue "orders"\napplied ConsumerGroup "analyzer"\n')
    const described = JSON.parse((await sh('queenctl queue describe orders -o json')).stdout)
    expect(described).toMatchObject({ namespace: 'billing', task: 'ingest' })
    expectUsageError(
      await sh(`printf 'kind: Queue\\nname: orders\\nconfig:\\n  leaseTim: 5\\n' | queenctl apply -f -`),
      'document 1 (Queue orders): config.leaseTim: unknown queue option',
    )
  })

  it('tx -f with --dry-run, then committed', async () => {
    await writeFile(
      path.join(home, 'bundle.json'),
      JSON.stringify({ operations: [{ type: 'push', items: [{ queue: 'txq', payload: { id: 1 } }] }] }),
    )
    expect(await sh('queenctl tx -f bundle.json --dry-run')).toEqual({
      code: 0,
      stdout: '[dry-run] 1 operations, 0 required leases\n',
      stderr: '',
    })
    expect(await sh('queenctl tx -f bundle.json')).toEqual({ code: 0, stdout: 'transaction committed\n', stderr: '' })
  })

  it('maintenance get -o json carries maintenanceMode and popMaintenanceMode', async () => {
    const run = await sh('queenctl maintenance get -o json')
    expect(JSON.parse(run.stdout)).toMatchObject({ maintenanceMode: false, popMaintenanceMode: false })
  })

  it('bench --total --producers --consumers --payload-size', async () => {
    const run = await sh('queenctl bench --total 300 --producers 2 --consumers 2 --payload-size 32 -o json')
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout).phases.map((phase: { messages: number }) => phase.messages)).toEqual([300, 300, 300])
  })

  it('messages list --limit 10000', async () => {
    const run = await sh('queenctl messages list --queue orders --limit 10000 -o json')
    expect(run.code, run.stderr).toBe(0)
    expect(Array.isArray(JSON.parse(run.stdout))).toBe(true)
  })
})

describe('the command index of the Go queenctl README', () => {
  for (const line of [
    'queenctl version',
    'queenctl queue list',
    'queenctl queue describe orders',
    'queenctl queue stats',
    'queenctl partition list orders',
    'queenctl p list orders',
    'queenctl partitions list orders',
    'queenctl cg list',
    'queenctl cg lag',
    'queenctl dlq list',
    'queenctl namespace list',
    'queenctl namespaces list',
    'queenctl task list',
    'queenctl tasks list',
    'queenctl metrics',
    'queenctl metrics --prometheus',
    'queenctl analytics overview',
    'queenctl traces names',
    'queenctl config view',
    'queenctl config get-contexts',
    'queenctl config ls',
    'queenctl completion bash',
    'queenctl docs',
    'queenctl docs --topic http-api',
  ]) {
    it(line, async () => {
      const run = await sh(line)
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).not.toBe('')
    })
  }
})

describe('auth and contexts of the Go queenctl README', () => {
  it('login --method token stores a reference; logout removes it; password needs a gateway', async () => {
    const login = await sh('printf %s qk_test_key | queenctl login --method token')
    expect(login).toEqual({ code: 0, stdout: 'logged in to context "local"\n', stderr: '' })
    const view = await sh('queenctl config view -o json')
    const local = JSON.parse(view.stdout).contexts.find((context: { name: string }) => context.name === 'local')
    expect(local['token-ref']).toMatch(/^file:\/\/\/.*local\.token$/)
    expect(await sh('queenctl logout')).toEqual({ code: 0, stdout: 'logged out of context "local"\n', stderr: '' })
    const after = JSON.parse((await sh('queenctl config view -o json')).stdout)
    expect(after.contexts.find((context: { name: string }) => context.name === 'local')['token-ref']).toBeUndefined()
    // The context points at a broker, not a gateway (queenctl proxy serve): there is no /api/login to sign in at.
    const password = await sh('printf %s a-password | queenctl login --method password -u alice@example.com')
    expect(password.code).toBe(1)
    expect(password.stderr).toContain('is it a queen gateway?')
  })

  it('set-context --token --no-keychain writes literal:; keychain:// without a keyring names the reference', async () => {
    const literal = await sh('queenctl config set-context ci --server http://ci:6632 --token abc --no-keychain')
    expect(literal.code, literal.stderr).toBe(0)
    const ci = JSON.parse((await sh('queenctl config view -o json --raw')).stdout).contexts.find(
      (context: { name: string }) => context.name === 'ci',
    )
    expect(ci['token-ref']).toBe('literal:abc')
    // No keyring tool on PATH here: the error names the reference and exits 3 (auth).
    await sh(`queenctl config set-context kc --server ${broker.url} --token-ref keychain://kc`)
    const read = await sh('queenctl --context kc ping', { PATH: `${bin}:/nonexistent` })
    expect(read.code).toBe(3)
    expect(read.stderr).toContain('keychain://kc')
    const store = await sh('queenctl config set-context kc2 --token abc', { PATH: `${bin}:/nonexistent` })
    expect(store.code).toBe(3)
    expect(store.stderr).toContain('--no-keychain')
  })

  it('config rm removes a context', async () => {
    expect((await sh('queenctl config rm ci')).code).toBe(0)
  })
})
