/**
 * What the benchmark reads from the machine: CPU seconds and RSS of processes from /proc, machine-wide busy
 * and steal time from /proc/stat, and latency percentiles (docs/performance.md, "What every run measures"). Linux only;
 * on other systems the readers return undefined and the report shows "n/a".
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/** Clock ticks per second of /proc CPU counters (`getconf CLK_TCK`, almost always 100). */
const CLOCK_TICKS = (() => {
  try {
    const value = Number.parseInt(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim(), 10)
    return Number.isFinite(value) && value > 0 ? value : 100
  } catch {
    return 100
  }
})()

interface ProcStat {
  /** Field 3: R, S, D, Z (exited, not yet reaped), ... */
  state: string
  ppid: number
  /** utime + stime of the process itself, seconds. */
  ownSeconds: number
  /** cutime + cstime: CPU of children it has waited for (a postmaster reaps its backends), seconds. */
  reapedSeconds: number
}

function readProcStat(pid: number): ProcStat | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // The command name (field 2) may contain spaces and parentheses: split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  const field = (n: number) => Number.parseInt(fields[n - 3] ?? '0', 10)
  return {
    state: fields[0] ?? '',
    ppid: field(4),
    ownSeconds: (field(14) + field(15)) / CLOCK_TICKS,
    reapedSeconds: (field(16) + field(17)) / CLOCK_TICKS,
  }
}

function listPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
  } catch {
    return []
  }
}

/**
 * The command name of a live process (/proc/<pid>/comm), or undefined when there is no such process or it has
 * exited and waits to be reaped (a zombie; in a container whose init does not reap, one may stay forever).
 */
export function commandName(pid: number): string | undefined {
  try {
    const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
    return readProcStat(pid)?.state === 'Z' ? undefined : name
  } catch {
    return undefined
  }
}

/** Pids of the live processes whose command name is `name`. */
export function pidsNamed(name: string): number[] {
  return listPids().filter((pid) => commandName(pid) === name)
}

/** CPU seconds (user + system) a process has used so far, or undefined when it is gone. */
export function processCpuSeconds(pid: number): number | undefined {
  return readProcStat(pid)?.ownSeconds
}

/** Pids of the live descendants of `rootPid` whose command name is `name`. */
export function descendantsNamed(rootPid: number, name: string): number[] {
  return descendants(rootPid).pids.filter((pid) => commandName(pid) === name)
}

/** The live descendants of a process (children, their children, ...), from a scan of /proc. */
function descendants(rootPid: number): { pids: number[]; stats: Map<number, ProcStat> } {
  const children = new Map<number, number[]>()
  const stats = new Map<number, ProcStat>()
  for (const pid of listPids()) {
    const stat = readProcStat(pid)
    if (!stat) continue
    stats.set(pid, stat)
    const siblings = children.get(stat.ppid) ?? []
    siblings.push(pid)
    children.set(stat.ppid, siblings)
  }
  const pids: number[] = []
  const pending = [...(children.get(rootPid) ?? [])]
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    pids.push(pid)
    pending.push(...(children.get(pid) ?? []))
  }
  return { pids, stats }
}

/**
 * CPU seconds of a process tree: the root (itself and the children it reaped) plus every live descendant.
 * For a postmaster this is the whole PostgreSQL cluster: backends that exited between two snapshots are
 * counted through the postmaster's cutime/cstime.
 */
export function treeCpuSeconds(rootPid: number): number | undefined {
  const root = readProcStat(rootPid)
  if (!root) return undefined
  const { pids, stats } = descendants(rootPid)
  return pids.reduce((total, pid) => total + (stats.get(pid)?.ownSeconds ?? 0), root.ownSeconds + root.reapedSeconds)
}

/** RSS of a process and its live descendants, bytes (our broker has none; a RabbitMQ launcher has beam.smp). */
export function treeRssBytes(rootPid: number): number | undefined {
  const root = rssBytes(rootPid)
  if (root === undefined) return undefined
  return descendants(rootPid).pids.reduce((total, pid) => total + (rssBytes(pid) ?? 0), root)
}

/** Resident set size of a process in bytes (VmRSS), or undefined when it is gone. */
export function rssBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match?.[1] ? Number(match[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}

/** Machine-wide CPU counters from the first line of /proc/stat, in seconds summed over all cores. */
export interface MachineCpu {
  busySeconds: number
  stealSeconds: number
}

export function machineCpu(): MachineCpu | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? ''
    const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number)
    const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0)
    return { busySeconds: busy / CLOCK_TICKS, stealSeconds: (steal ?? 0) / CLOCK_TICKS }
  } catch {
    return undefined
  }
}

/** CPU seconds of this (load generator) process. */
export function benchCpuSeconds(): number {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1e6
}

/** The processes whose CPU a scenario reports. */
export interface WatchedProcesses {
  /** The broker under test (our child process, or the RabbitMQ server tree). */
  brokerPid?: number
  /** The postmaster of the benchmark's PostgreSQL; undefined when PostgreSQL is remote. */
  postmasterPid?: number
}

/** One reading of every CPU counter the report uses. */
export interface CpuSnapshot {
  atMs: number
  broker?: number
  pg?: number
  bench: number
  machine?: MachineCpu
}

export function cpuSnapshot(watched: WatchedProcesses): CpuSnapshot {
  return {
    atMs: performance.now(),
    broker: watched.brokerPid === undefined ? undefined : treeCpuSeconds(watched.brokerPid),
    pg: watched.postmasterPid === undefined ? undefined : treeCpuSeconds(watched.postmasterPid),
    bench: benchCpuSeconds(),
    machine: machineCpu(),
  }
}

/** CPU used between two snapshots, seconds; `otherCores` is machine load not explained by our processes. */
export interface CpuUsage {
  seconds: number
  broker?: number
  pg?: number
  bench: number
  machineBusy?: number
  /** Average cores the hypervisor gave other guests while ours were runnable (/proc/stat `steal`). */
  stealCores?: number
  /** Average cores used by processes that are neither the broker, PostgreSQL nor the load generator. */
  otherCores?: number
  /**
   * Average cores used by the broker, PostgreSQL and the load generator together. Undefined when PostgreSQL
   * is remote (its CPU is not on this machine) or a watched process had no reading at one end of the window.
   */
  busyCores?: number
}

export function cpuBetween(start: CpuSnapshot, end: CpuSnapshot): CpuUsage {
  const seconds = (end.atMs - start.atMs) / 1000
  const diff = (a?: number, b?: number) => (a === undefined || b === undefined ? undefined : Math.max(0, b - a))
  const broker = diff(start.broker, end.broker)
  const pg = diff(start.pg, end.pg)
  const bench = Math.max(0, end.bench - start.bench)
  const machineBusy = diff(start.machine?.busySeconds, end.machine?.busySeconds)
  const steal = diff(start.machine?.stealSeconds, end.machine?.stealSeconds)
  const ours = (broker ?? 0) + (pg ?? 0) + bench
  const otherCores = machineBusy === undefined || seconds <= 0 ? undefined : Math.max(0, machineBusy - ours) / seconds
  const stealCores = steal === undefined || seconds <= 0 ? undefined : steal / seconds
  const complete = pg !== undefined && (start.broker === undefined) === (end.broker === undefined)
  const busyCores = seconds > 0 && complete ? ours / seconds : undefined
  return { seconds, broker, pg, bench, machineBusy, stealCores, otherCores, busyCores }
}

/**
 * Waits (bounded) until processes other than ours use less than `maxCores`, as docs/performance.md, "Principles of the
 * bench" asks.
 */
export async function waitForQuietMachine(
  watched: WatchedProcesses,
  options: { maxCores: number; timeoutMs: number },
): Promise<number | undefined> {
  const deadline = Date.now() + options.timeoutMs
  let other: number | undefined
  do {
    const start = cpuSnapshot(watched)
    await sleep(500)
    other = cpuBetween(start, cpuSnapshot(watched)).otherCores
    if (other === undefined || other < options.maxCores) return other
  } while (Date.now() < deadline)
  return other
}

/** Collects latency samples in milliseconds. */
export class Latencies {
  private readonly samples: number[] = []

  add(ms: number): void {
    this.samples.push(ms)
  }

  get count(): number {
    return this.samples.length
  }

  /** p-th percentile (0-100) by nearest rank, or undefined without samples. */
  percentiles(...ps: number[]): (number | undefined)[] {
    if (this.samples.length === 0) return ps.map(() => undefined)
    const sorted = Float64Array.from(this.samples).sort()
    return ps.map((p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))])
  }
}

/** Median of the defined values, or undefined. */
export function median(values: readonly (number | undefined)[]): number | undefined {
  const sorted = values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return undefined
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}
