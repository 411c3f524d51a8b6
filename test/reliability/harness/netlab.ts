/**
 * Network namespaces for the brokers under test (issue 38). Each broker lives in its own namespace with one
 * veth link to the root namespace, where the test, its forwarders and PostgreSQL run. The addresses are in
 * 198.18.0.0/15 (RFC 2544, benchmarking), exist only on these links, and no route leads anywhere else: no
 * packet leaves the machine.
 *
 * Faults are nftables rules inside a broker's namespace, matched by TCP port so the test's own HTTP traffic
 * to the broker is never touched: loss (`numgen random`), a full partition (both directions dropped) and a
 * one-way partition (the broker's packets dropped, the peer's still arrive). This kernel has no `sch_netem`,
 * so delay is added by the forwarders instead (test/support/fault-proxy.ts).
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'

/** A broker's namespace and its link. */
export interface BrokerNet {
  ns: string
  /** The broker's address (inside the namespace). */
  address: string
  /** The root namespace's end of the link: where forwarders listen for this broker. */
  hostAddress: string
}

/** Runs a command, rejecting with its stderr. */
export function sh(file: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')}: ${stderr.trim() || error.message}`))
      else resolve(stdout)
    })
    if (input !== undefined) child.stdin?.end(input)
  })
}

/** Which packets a fault drops, seen from the broker's namespace. */
export interface PortSelector {
  /** Connections the broker opens to this port on its host address (PostgreSQL, a peer's mesh forwarder). */
  outboundPorts?: number[]
  /** Connections others open to this port of the broker (its mesh listener). */
  inboundPorts?: number[]
}

/** What happens to the selected packets. */
export type NetFault =
  | { kind: 'loss'; percent: number }
  | { kind: 'partition' }
  /** The broker's packets are dropped; the other side's still arrive. */
  | { kind: 'one-way' }

/** The namespaces of one harness run. */
export class NetLab {
  readonly brokers: BrokerNet[] = []
  private readonly tag = randomBytes(2).toString('hex')

  /** Creates `count` namespaces, each with a veth link 198.18.<i>.1 (host) / 198.18.<i>.2 (broker). */
  static async create(count: number): Promise<NetLab> {
    const lab = new NetLab()
    try {
      for (let index = 1; index <= count; index++) await lab.addBroker(index)
    } catch (error) {
      await lab.destroy()
      throw error
    }
    return lab
  }

  private async addBroker(index: number): Promise<void> {
    const ns = `qh${this.tag}b${index}`
    const host = `qh${this.tag}h${index}`
    const inner = `qh${this.tag}n${index}`
    const net: BrokerNet = { ns, address: `198.18.${index}.2`, hostAddress: `198.18.${index}.1` }
    await sh('ip', ['netns', 'add', ns])
    this.brokers.push(net)
    await sh('ip', ['link', 'add', host, 'type', 'veth', 'peer', 'name', inner])
    await sh('ip', ['link', 'set', inner, 'netns', ns])
    await sh('ip', ['addr', 'add', `${net.hostAddress}/24`, 'dev', host])
    await sh('ip', ['link', 'set', host, 'up'])
    await sh('ip', ['-n', ns, 'addr', 'add', `${net.address}/24`, 'dev', inner])
    await sh('ip', ['-n', ns, 'link', 'set', inner, 'up'])
    await sh('ip', ['-n', ns, 'link', 'set', 'lo', 'up'])
    await this.nft(net, 'add table inet qh')
    await this.nft(net, 'add chain inet qh out { type filter hook output priority 0 ; policy accept ; }')
    await this.nft(net, 'add chain inet qh in { type filter hook input priority 0 ; policy accept ; }')
  }

  /** Applies a fault to the selected traffic of one broker; {@link heal} removes every fault of it. */
  async apply(net: BrokerNet, selector: PortSelector, fault: NetFault): Promise<void> {
    const verdict = fault.kind === 'loss' ? `numgen random mod 100 < ${fault.percent} drop` : 'drop'
    const both = fault.kind !== 'one-way'
    const rules: string[] = []
    for (const port of selector.outboundPorts ?? []) {
      rules.push(`add rule inet qh out ip daddr ${net.hostAddress} tcp dport ${port} ${verdict}`)
      if (both) rules.push(`add rule inet qh in ip saddr ${net.hostAddress} tcp sport ${port} ${verdict}`)
    }
    for (const port of selector.inboundPorts ?? []) {
      rules.push(`add rule inet qh out tcp sport ${port} ${verdict}`)
      if (both) rules.push(`add rule inet qh in tcp dport ${port} ${verdict}`)
    }
    for (const rule of rules) await this.nft(net, rule)
  }

  /** Removes every fault of one broker. */
  async heal(net: BrokerNet): Promise<void> {
    await this.nft(net, 'flush chain inet qh out')
    await this.nft(net, 'flush chain inet qh in')
  }

  /** The rules in force in a broker's namespace (for the report of a failing run). */
  async rules(net: BrokerNet): Promise<string> {
    return sh('ip', ['netns', 'exec', net.ns, 'nft', 'list', 'table', 'inet', 'qh'])
  }

  /** Removes the namespaces (their veth links go with them). */
  async destroy(): Promise<void> {
    for (const net of this.brokers.splice(0)) await sh('ip', ['netns', 'del', net.ns]).catch(() => undefined)
  }

  private nft(net: BrokerNet, command: string): Promise<string> {
    return sh('ip', ['netns', 'exec', net.ns, 'nft', command])
  }
}
