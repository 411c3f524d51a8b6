/**
 * Settings of subsystems this broker does not implement yet (tenants bound to tokens). Each stops the boot
 * naming its variable: accepted and ignored, it would let an operator believe a broker is isolated when it
 * is not. Each rule goes when its subsystem lands.
 */
import type { BrokerConfig } from './config/broker-config.js'

/** One line per setting the broker cannot honour; empty when it can honour them all. */
export function unbuiltSettings(config: Pick<BrokerConfig, 'tenancy'>): string[] {
  const problems: string[] = []
  if (config.tenancy.claim !== undefined) {
    problems.push(
      `config error: QUEEN_TENANCY_CLAIM=${config.tenancy.claim}: tenancy is not implemented in this version. ` +
        'Unset QUEEN_TENANCY_CLAIM',
    )
  }
  return problems
}
