/**
 * A broker under test: a real `queenctl serve` process inside its network namespace (`ip netns exec`),
 * reaching PostgreSQL through the address that follows the primary, meshed with the other replica through
 * a forwarder, its spool in a folder of the harness. One replica runs under libfaketime (LD_PRELOAD), with
 * a clock offset the harness can step while it runs.
 */
import { writeFile } from 'node:fs/promises'
import { startProcess, REPO_ROOT, type TestProcess } from '../../support/cli-harness.js'
import type { PgCredentials } from './pg-cluster.js'
import type { BrokerNet } from './netlab.js'

/** Debian's libfaketime (package `faketime`). */
export const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1'

/** HTTP and mesh ports inside every namespace (each namespace has its own port space). */
export const BROKER_HTTP_PORT = 6632
export const BROKER_MESH_PORT = 6633

/** How to start one broker. */
export interface BrokerSpec {
  name: string
  net: BrokerNet
  spool: string
  /** Port of the PostgreSQL forwarder on the broker's host address. */
  pgPort: number
  credentials: PgCredentials
  /** host:port of the other replicas' mesh, as this broker reaches them. */
  peers: string[]
  meshSecret: string
  /** A file holding libfaketime's offset (e.g. `+0`); the broker then runs under libfaketime. */
  clockFile?: string
}

/** A broker process that can be killed and started again on the same spool. */
export class BrokerNode {
  process: TestProcess | undefined
  readonly url: string
  /** Output of earlier incarnations (restarts), for the report of a failing run. */
  private readonly pastOutput: string[] = []
  /** Exits the harness did not ask for (a crash), with the end of the output. */
  readonly crashes: string[] = []
  /** Boots that ended in an exit before the listening line (then retried). */
  readonly bootFailures: string[] = []
  private stopping = false

  readonly spec: BrokerSpec

  constructor(spec: BrokerSpec) {
    this.spec = spec
    this.url = `http://${spec.net.address}:${BROKER_HTTP_PORT}`
  }

  get name(): string {
    return this.spec.name
  }

  /** Starts `serve` and waits for its listening line. */
  async start(): Promise<void> {
    const { spec } = this
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: '/tmp',
      PORT: String(BROKER_HTTP_PORT),
      HOST: '0.0.0.0',
      QUEEN_SERVER_ID: spec.name,
      PG_HOST: spec.net.hostAddress,
      PG_PORT: String(spec.pgPort),
      PG_USER: spec.credentials.user,
      PG_PASSWORD: spec.credentials.password,
      PG_DATABASE: spec.credentials.database,
      FILE_BUFFER_DIR: spec.spool,
      FILE_BUFFER_FLUSH_MS: '100',
      DB_CONNECTION_TIMEOUT: '2000',
      DB_STATEMENT_TIMEOUT: '10000',
      QUEEN_STATE_REFRESH_MS: '1000',
      QUEEN_LEASE_RECLAIM_INTERVAL_MS: '500',
      QUEEN_MESH_PORT: String(BROKER_MESH_PORT),
      QUEEN_MESH_PEERS: spec.peers.join(','),
      QUEEN_SYNC_SECRET: spec.meshSecret,
      QUEEN_SHUTDOWN_TIMEOUT_MS: '10000',
      LOG_LEVEL: 'info',
    }
    const command = [process.execPath, 'bin/run.js', 'serve']
    const preload = spec.clockFile
      ? [
          `LD_PRELOAD=${LIBFAKETIME}`,
          `FAKETIME_TIMESTAMP_FILE=${spec.clockFile}`,
          // Re-read the offset every second; monotonic clocks (timers) stay real.
          'FAKETIME_CACHE_DURATION=1',
          'FAKETIME_DONT_FAKE_MONOTONIC=1',
        ]
      : []
    // Like a supervisor, a broker that exits during its boot is started again (a few times); each such exit
    // is a finding the report lists.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.boot(env, [...preload, ...command])
        return
      } catch (error) {
        this.bootFailures.push(
          `${spec.name} boot ${attempt} failed at ${new Date().toISOString()}: ${String(error).slice(-1500)}`,
        )
        if (attempt >= 5) throw error
        await new Promise((resolve) => setTimeout(resolve, 1000))
      }
    }
  }

  private async boot(env: Record<string, string>, command: string[]): Promise<void> {
    const { spec } = this
    if (this.process) this.pastOutput.push(this.process.output())
    // `ip netns exec` and `env` exec in place: the pid is the broker's own, so signals reach it.
    this.process = startProcess(
      'ip',
      ['netns', 'exec', spec.net.ns, '/usr/bin/env', ...command],
      env,
      `queenctl serve ${spec.name} in ${spec.net.ns}`,
      REPO_ROOT,
    )
    this.stopping = false
    const started = this.process
    let up = false
    started.child.once('close', (code, signal) => {
      // An exit during the boot is a boot failure (start() records it), not a crash.
      if (this.stopping || !up) return
      const tail = started.output().split('\n').slice(-30).join('\n')
      this.crashes.push(
        `${spec.name} exited (code ${String(code)}, signal ${String(signal)}) at ${new Date().toISOString()}:\n${tail}`,
      )
    })
    await started.waitFor(/\blistening\b.*\bhttp=/, 60_000)
    up = true
  }

  /** Sends a signal and waits for the exit (SIGTERM: the drain; SIGKILL: a crash). */
  async stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const child = this.process
    if (!child?.running()) return { code: null, signal: null }
    this.stopping = true
    child.child.kill(signal)
    return child.exited(60_000)
  }

  /** Everything this broker printed, across restarts. */
  output(): string {
    return [...this.pastOutput, this.process?.output() ?? ''].join('\n--- restart ---\n')
  }

  /** Ends the process if running (SIGKILL). */
  async kill(): Promise<void> {
    this.stopping = true
    await this.process?.kill()
  }
}

/** Sets the clock offset of a broker started with `clockFile` (libfaketime syntax: `+30`, `-60`). */
export async function setClockOffset(file: string, offsetSeconds: number): Promise<void> {
  await writeFile(file, `${offsetSeconds >= 0 ? '+' : ''}${offsetSeconds}\n`)
}
