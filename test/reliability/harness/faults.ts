/**
 * The faults of issue 38. Each injects itself into a running {@link Harness}, holds for its duration and
 * heals; the scenario records when (a phase) so the report can say what happened during each fault.
 * Durations scale with the profile: `holdMs` is the fault's length in the short profile.
 */
import { readdir, rm, statfs, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { setClockOffset } from './broker-node.js'
import type { Harness } from './harness.js'

/** A fault the scenario can run. */
export interface Fault {
  name: string
  /** One line for the report: what the harness does. */
  description: string
  /** The broker names whose answers and health the fault is about. */
  affects: (harness: Harness) => string[]
  /**
   * Injects the fault, holds it `holdMs`, heals it. Calls `healed()` at the moment the fault ends (the
   * time to resume is measured from it); answers notes for the report.
   */
  run: (harness: Harness, holdMs: number, healed: () => void) => Promise<string | void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const first = (harness: Harness) => harness.brokers[0]!
const second = (harness: Harness) => harness.brokers[1]!
const all = (harness: Harness) => harness.brokers.map((broker) => broker.name)

export const FAULTS: Fault[] = [
  {
    name: 'pg-failover',
    description:
      'primary stopped with pg_ctl stop -m immediate; 2 s later the synchronous standby is promoted (pg_ctl promote) and the address switched to it',
    affects: all,
    async run(harness, holdMs, healed) {
      await harness.cursors.sample('before failover')
      const old = harness.pair.primary
      const next = harness.pair.other
      await harness.pair.stopImmediate(old)
      await sleep(Math.min(2000, holdMs))
      await harness.pair.promote(next)
      harness.switchPrimaryAddress(next, true)
      healed()
      await harness.cursors.sample('after failover')
      return `${old.name} -> ${next.name}`
    },
  },
  {
    name: 'old-primary-read-only',
    description:
      'the old primary is rewound (pg_rewind) and started as a hot standby; the address points at it (read-only, open connections cut) for the hold, then back at the primary without cutting',
    affects: all,
    async run(harness, holdMs, healed) {
      const stale = harness.pair.other
      if (stale.role === 'stopped') await harness.pair.rejoinAsStandby(stale)
      await harness.cursors.sample('before read-only')
      harness.switchPrimaryAddress(stale, true)
      await sleep(holdMs)
      harness.switchPrimaryAddress(harness.pair.primary, false)
      healed()
      await harness.cursors.sample('after read-only')
      return `${stale.name} read-only for ${holdMs} ms`
    },
  },
  {
    name: 'pg-immediate-stop',
    description: 'primary stopped with pg_ctl stop -m immediate and started again after the hold (no promotion)',
    affects: all,
    async run(harness, holdMs, healed) {
      const node = harness.pair.primary
      await harness.pair.stopImmediate(node)
      await sleep(holdMs)
      await harness.pair.startNode(node, 'primary')
      healed()
    },
  },
  {
    name: 'pg-delay-200ms',
    description: '200 ms added each way on broker 1 <-> PostgreSQL (TCP forwarder: this kernel has no sch_netem)',
    affects: (harness) => [first(harness).name],
    async run(harness, holdMs, healed) {
      harness.pgForwarders[0]!.setDelayMs(200)
      await sleep(holdMs)
      harness.pgForwarders[0]!.setDelayMs(0)
      healed()
    },
  },
  {
    name: 'pg-loss-5pct',
    description: '5 % of packets dropped each way on broker 1 <-> PostgreSQL (nftables numgen in its namespace)',
    affects: (harness) => [first(harness).name],
    async run(harness, holdMs, healed) {
      await harness.lab.apply(first(harness).spec.net, harness.pgLink(0), { kind: 'loss', percent: 5 })
      await sleep(holdMs)
      await harness.lab.heal(first(harness).spec.net)
      healed()
    },
  },
  {
    name: 'pg-partition',
    description: 'every packet dropped both ways on broker 1 <-> PostgreSQL (no reset: a silent partition)',
    affects: (harness) => [first(harness).name],
    async run(harness, holdMs, healed) {
      await harness.lab.apply(first(harness).spec.net, harness.pgLink(0), { kind: 'partition' })
      await sleep(holdMs)
      await harness.lab.heal(first(harness).spec.net)
      healed()
    },
  },
  {
    name: 'pg-one-way',
    description: "broker 1's packets to PostgreSQL dropped; PostgreSQL's packets still arrive",
    affects: (harness) => [first(harness).name],
    async run(harness, holdMs, healed) {
      await harness.lab.apply(first(harness).spec.net, harness.pgLink(0), { kind: 'one-way' })
      await sleep(holdMs)
      await harness.lab.heal(first(harness).spec.net)
      healed()
    },
  },
  {
    name: 'mesh-delay-200ms',
    description: '200 ms added each way on the mesh between the replicas (TCP forwarders)',
    affects: all,
    async run(harness, holdMs, healed) {
      for (const forwarder of harness.meshForwarders) forwarder.setDelayMs(200)
      await sleep(holdMs)
      for (const forwarder of harness.meshForwarders) forwarder.setDelayMs(0)
      healed()
    },
  },
  {
    name: 'mesh-loss-5pct',
    description: '5 % of mesh packets dropped each way between the replicas (nftables)',
    affects: all,
    async run(harness, holdMs, healed) {
      await harness.lab.apply(first(harness).spec.net, harness.meshLink(0), { kind: 'loss', percent: 5 })
      await sleep(holdMs)
      await harness.lab.heal(first(harness).spec.net)
      healed()
    },
  },
  {
    name: 'mesh-partition',
    description: 'the mesh between the replicas cut both ways (nftables drop)',
    affects: all,
    async run(harness, holdMs, healed) {
      await harness.lab.apply(first(harness).spec.net, harness.meshLink(0), { kind: 'partition' })
      await sleep(holdMs)
      await harness.lab.heal(first(harness).spec.net)
      healed()
    },
  },
  {
    name: 'mesh-one-way',
    description: "broker 1's mesh packets dropped; broker 2's still arrive",
    affects: all,
    async run(harness, holdMs, healed) {
      await harness.lab.apply(first(harness).spec.net, harness.meshLink(0), { kind: 'one-way' })
      await sleep(holdMs)
      await harness.lab.heal(first(harness).spec.net)
      healed()
    },
  },
  {
    name: 'broker-sigkill',
    description: 'broker 1 killed with SIGKILL, started again on the same spool after the hold',
    affects: (harness) => [first(harness).name],
    async run(harness, holdMs, healed) {
      await first(harness).stop('SIGKILL')
      await sleep(holdMs)
      await first(harness).start()
      healed()
    },
  },
  {
    name: 'broker-sigterm',
    description: 'broker 2 stopped with SIGTERM (drain), started again on the same spool after the hold',
    affects: (harness) => [second(harness).name],
    async run(harness, holdMs, healed) {
      const exit = await second(harness).stop('SIGTERM')
      await sleep(holdMs)
      await second(harness).start()
      healed()
      return `exit code ${String(exit.code)} signal ${String(exit.signal)}`
    },
  },
  {
    name: 'spool-disk-full',
    description:
      "broker 2 partitioned from PostgreSQL with its spool's tmpfs filled but 32 KiB, so pushes spool until the disk is full; then space freed and the partition healed",
    affects: (harness) => [second(harness).name],
    async run(harness, holdMs, healed) {
      const filler = path.join(harness.tmpfs, 'filler')
      const fs = await statfs(harness.tmpfs)
      const free = fs.bavail * fs.bsize
      await writeFile(filler, Buffer.alloc(Math.max(0, free - 32 * 1024)))
      await harness.lab.apply(second(harness).spec.net, harness.pgLink(1), { kind: 'partition' })
      await sleep(holdMs)
      await rm(filler, { force: true })
      await harness.lab.heal(second(harness).spec.net)
      healed()
      const segments = await readdir(path.join(harness.tmpfs, 'spool')).catch(() => [])
      return `tmpfs free before: ${Math.round(free / 1024)} KiB; spool entries at heal: ${segments.length}`
    },
  },
  {
    name: 'clock-step',
    description: "broker 2's clock stepped 120 s forward (libfaketime), held, then stepped back",
    affects: (harness) => [second(harness).name],
    async run(harness, holdMs, healed) {
      await setClockOffset(harness.clockFile, 120)
      await sleep(holdMs)
      await setClockOffset(harness.clockFile, 0)
      healed()
    },
  },
]

/** A fault by name (for `--faults`). */
export function faultNamed(name: string): Fault {
  const fault = FAULTS.find((candidate) => candidate.name === name)
  if (!fault) throw new Error(`unknown fault "${name}"; known: ${FAULTS.map((f) => f.name).join(', ')}`)
  return fault
}
