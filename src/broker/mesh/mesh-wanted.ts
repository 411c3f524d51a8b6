/**
 * Whether the mesh runs at all (docs/operations.md, "When the mesh runs"): peers configured and `QUEEN_SYNC_ENABLED`
 * not false. Its own module so that a broker without a mesh decides it without loading the mesh (issue 39, part 2).
 */
import type { BrokerConfig } from '../config/broker-config.js'

export function meshWanted(config: Pick<BrokerConfig, 'mesh'>): boolean {
  return config.mesh.enabled && config.mesh.peers.length > 0
}
