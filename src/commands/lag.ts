import CgLag from './cg/lag.js'

export default class Lag extends CgLag {
  static override summary = 'Partitions where a consumer group lags behind (same as cg lag)'
  static override hiddenAliases: string[] = []
  static override examples = ['<%= config.bin %> lag', '<%= config.bin %> lag --min-seconds 300']
}
