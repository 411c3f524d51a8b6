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
import { freePort } from '../../support/mesh-cluster.js'
import { BROKER_HTTP_PORT, BROKER_MESH_PORT, BrokerNode } from './broker-node.js'
import { Load } from './load.js'
import { NetLab, type PortSelector } from './netlab.js'
import { PgPair, type PgNode } from './pg-cluster.js'
import { CursorSampler, HealthSampler, type HealthSample } from './probes.js'

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
    const pair = await PgPair.start([await freePort(), await freePort()])
    let lab: NetLab
    try {
      lab = await NetLab.create(2)
    } catch (error) {
      await pair.destroy()
      throw error
    }
    const harness = new Harness(pair, lab)
    try {
      await harness.startBrokers()
    } catch (error) {
      await harness.stop()
      throw error
    }
    return harness
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
          // Any free port: a fixed one may be taken by a server listening on every address.
          { host: net.hostAddress, port: 0 },
        ),
      )
    }
    // Broker i's mesh is reached by the other replica through a forwarder on that replica's host address.
    for (let index = 0; index < nets.length; index++) {
      const dialer = nets[(index + 1) % nets.length]!
      this.meshForwarders.push(
        await startFaultProxy(
          { host: nets[index]!.address, port: BROKER_MESH_PORT },
          { host: dialer.hostAddress, port: 0 },
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
          pgPort: this.pgForwarders[index]!.port,
          credentials: this.pair.credentials,
          // The forwarder on this broker's host address that leads to the other replica's mesh.
          peers: [`${nets[index]!.hostAddress}:${this.meshForwarders[(index + 1) % nets.length]!.port}`],
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

  /**
   * Waits until every broker is ready again (after a fault), then up to `spoolWaitMs` more for their spools
   * to empty, so the next fault starts clean. The spool may stay non-empty under unbroken load: a partition
   * with records awaiting replay keeps spooling its new pushes (push-router.ts); the final drain empties it.
   */
  async settle(timeoutMs: number, spoolWaitMs = 20_000): Promise<boolean> {
    const fresh = (check: (sample: HealthSample) => boolean) =>
      this.brokers.every((broker) => {
        const sample = this.health.latest(broker.name)
        return sample !== undefined && Date.now() - sample.t < 1000 && check(sample)
      })
    const deadline = Date.now() + timeoutMs
    for (;;) {
      if (this.crashes().length > 0) return false
      if (fresh((sample) => sample.ready === 200)) break
      if (Date.now() > deadline) return false
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const spoolDeadline = Date.now() + spoolWaitMs
    while (!fresh((sample) => sample.spooled === 0) && Date.now() < spoolDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    return true
  }

  /** Every broker exit the harness did not cause. */
  crashes(): string[] {
    return this.brokers.flatMap((broker) => broker.crashes)
  }

  /** Every boot of a broker that exited before listening (then retried, as a supervisor would). */
  bootFailures(): string[] {
    return this.brokers.flatMap((broker) => broker.bootFailures)
  }

  /** Ports broker `index` uses to reach PostgreSQL (its forwarder), for nftables. */
  pgLink(index: number): PortSelector {
    return { outboundPorts: [this.pgForwarders[index]!.port] }
  }

  /** The mesh of broker `index`: the forwarder it dials, and its own mesh port others reach it on. */
  meshLink(index: number): PortSelector {
    const dialed = this.meshForwarders[(index + 1) % this.meshForwarders.length]!
    return { outboundPorts: [dialed.port], inboundPorts: [BROKER_MESH_PORT] }
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
