/**
 * The fault harness of issue 38, assembled: PostgreSQL with a synchronous standby (pg-cluster.ts), two
 * `queenctl serve` replicas in their own network namespaces (netlab.ts, broker-node.ts), the address that
 * follows the primary (one forwarder per broker, test/support/fault-proxy.ts), the mesh through forwarders
 * too (so it can be slowed), the ledger load (load.ts) and the probes (probes.ts). faults.ts drives it.
 */
import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { startFaultProxy, type FaultProxy } from '../../support/fault-proxy.js'
import { Ledger } from '../../support/ledger.js'
import { BROKER_HTTP_PORT, BROKER_MESH_PORT, BrokerNode } from './broker-node.js'
import { Load } from './load.js'
import { NetLab } from './netlab.js'
import { PgPair, type PgNode } from './pg-cluster.js'
import { CursorSampler, HealthSampler } from './probes.js'

/** Port of the PostgreSQL forwarder, on each broker's host address. */
export const PG_FORWARD_PORT = 5432
/** Port of the mesh forwarders, on each broker's host address. */
export const MESH_FORWARD_PORT = 7633
/** Size of the tmpfs holding the spool of broker 2 (the full-disk fault fills it). */
export const SPOOL_TMPFS_SIZE = '4m'

export class Harness {
  readonly ledger = new Ledger()
  brokers: BrokerNode[] = []
  /** Per broker: its way to the primary. */
  pgForwarders: FaultProxy[] = []
  /** Per broker: the forwarder other replicas dial to reach its mesh port. */
  meshForwarders: FaultProxy[] = []
  load!: Load
  health!: HealthSampler
  cursors!: CursorSampler
  /** libfaketime offset file of broker 2. */
  clockFile = ''
  /** The tmpfs of broker 2's spool, and a filler file beside the spool folder. */
  tmpfs = ''
  private root = ''

  readonly pair: PgPair
  readonly lab: NetLab

  constructor(pair: PgPair, lab: NetLab) {
    this.pair = pair
    this.lab = lab
  }

  /** Starts everything but the load. */
  static async start(): Promise<Harness> {
    const pair = await PgPair.start([25481, 25482])
    let lab: NetLab | undefined
    try {
      lab = await NetLab.create(2)
      const harness = new Harness(pair, lab)
      await harness.startBrokers()
      return harness
    } catch (error) {
      await lab?.destroy()
      await pair.destroy()
      throw error
    }
  }

  private async startBrokers(): Promise<void> {
    this.root = await mkdtemp('/tmp/queen-harness-')
    this.tmpfs = path.join(this.root, 'tmpfs')
    await mkdir(this.tmpfs)
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${SPOOL_TMPFS_SIZE}`, 'tmpfs', this.tmpfs])
    this.clockFile = path.join(this.root, 'clock-b2')
    await writeFile(this.clockFile, '+0\n')
    const nets = this.lab.brokers
    for (const net of nets) {
      this.pgForwarders.push(
        await startFaultProxy(
          { host: '127.0.0.1', port: this.pair.primary.port },
          { host: net.hostAddress, port: PG_FORWARD_PORT },
        ),
      )
    }
    // Broker i's mesh is reached by the other replica through a forwarder on that replica's host address.
    for (let index = 0; index < nets.length; index++) {
      const dialer = nets[(index + 1) % nets.length]!
      this.meshForwarders.push(
        await startFaultProxy(
          { host: nets[index]!.address, port: BROKER_MESH_PORT },
          { host: dialer.hostAddress, port: MESH_FORWARD_PORT },
        ),
      )
    }
    for (let index = 0; index < nets.length; index++) {
      const spool = index === 1 ? path.join(this.tmpfs, 'spool') : path.join(this.root, `spool-b${index + 1}`)
      await mkdir(spool, { recursive: true })
      this.brokers.push(
        new BrokerNode({
          name: `b${index + 1}`,
          net: nets[index]!,
          spool,
          pgPort: PG_FORWARD_PORT,
          credentials: this.pair.credentials,
          peers: [`${nets[index]!.hostAddress}:${MESH_FORWARD_PORT}`],
          meshSecret: 'issue-38-harness-mesh-secret-0123456789',
          clockFile: index === 1 ? this.clockFile : undefined,
        }),
      )
    }
    // One at a time: the first applies the schema.
    for (const broker of this.brokers) await broker.start()
    this.health = new HealthSampler(this.brokers)
    this.cursors = new CursorSampler(this.pair)
    this.load = new Load(this.ledger, this.brokers)
    await this.load.setup()
  }

  /** Points every broker's PostgreSQL address at `node`; `cut` resets the connections already open. */
  switchPrimaryAddress(node: PgNode, cut: boolean): void {
    for (const forwarder of this.pgForwarders) forwarder.setTarget({ host: '127.0.0.1', port: node.port }, { cut })
  }

  /** Waits until every broker is ready with an empty spool (after a fault). */
  async settle(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const settled = this.brokers.every((broker) => {
        const sample = this.health.latest(broker.name)
        return sample !== undefined && sample.ready === 200 && sample.spooled === 0 && Date.now() - sample.t < 1000
      })
      if (settled) return true
      if (Date.now() > deadline) return false
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }

  /** The brokers' HTTP URLs (for the report). */
  urls(): string[] {
    return this.brokers.map((broker) => `${broker.spec.net.address}:${BROKER_HTTP_PORT}`)
  }

  /** Stops everything; safe to call after a partial start. */
  async stop(): Promise<void> {
    await this.health?.stop()
    await this.cursors?.stop()
    for (const broker of this.brokers) await broker.kill()
    for (const forwarder of [...this.pgForwarders, ...this.meshForwarders]) await forwarder.close()
    await this.lab.destroy()
    await this.pair.destroy()
    if (this.tmpfs) {
      try {
        execFileSync('umount', [this.tmpfs])
      } catch {
        // not mounted
      }
    }
    if (this.root) await rm(this.root, { recursive: true, force: true })
  }
}
