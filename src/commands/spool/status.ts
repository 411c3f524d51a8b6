import { HttpCommand } from '../../cli/http-command.js'
import { fetchSpoolStatus, spoolStatusDisplay, type SpoolStatus } from '../../cli/spool-status.js'

export default class SpoolStatusCommand extends HttpCommand {
  static override summary = "Show a broker's spool: records awaiting replay, quarantine, state"
  static override description =
    'Reads GET /api/v1/status/buffers of the broker: records and bytes awaiting replay, segments, quarantined records, whether PostgreSQL is reachable, and the spool state (ok, replaying, full, unwritable, fallback). Each broker has its own spool; to read a spool directory itself, use queenctl spool inspect.'

  static override examples = [
    '<%= config.bin %> spool status',
    '<%= config.bin %> spool status --server http://queen-0.queen:6632 --output json',
  ]

  async run(): Promise<SpoolStatus> {
    const { flags } = await this.parse(SpoolStatusCommand)
    const out = this.output(flags)
    const status = await fetchSpoolStatus(await this.httpClient(flags))
    if (status.state === 'full' || status.state === 'unwritable') {
      out.warn(`the spool is ${status.state}: pushes are refused with 503 while PostgreSQL is unreachable`)
    } else if (status.state === 'fallback') {
      out.warn('the spool is in the OS temp directory, which may not survive a reboot or pod replacement')
    }
    out.detail(spoolStatusDisplay(status), status)
    return status
  }
}
