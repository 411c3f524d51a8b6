import { Flags } from '@oclif/core'
import { EXIT, UserError } from '../cli/errors.js'
import { parseDurationMs } from '../cli/flags.js'
import { HttpCommand } from '../cli/http-command.js'
import { colorEnabled } from '../cli/output.js'
import { PANES, type PaneKey } from '../cli/top/routes.js'
import { httpSource } from '../cli/top/top-source.js'
import { DEFAULT_INTERVAL_MS, initialView, MIN_INTERVAL_MS } from '../cli/top/view-state.js'

const NO_TERMINAL_HINT = 'use queenctl status -o json'

export default class Top extends HttpCommand {
  static override summary = 'A live dashboard of the broker in the terminal'
  static override description =
    'Panes (keys 1-6): Overview (rates with sparklines, pending, lag, maintenance, spool), Queues (Enter opens a queue’s partitions), Groups, DLQ, System (replicas, PostgreSQL), Mesh. Keys: Tab/Shift-Tab switch panes, ↑/↓ or j/k move, Esc goes back, / filters by name, s cycles the sort column and r reverses it, p pauses, +/- change the interval, m/M toggle push-/pop-maintenance after a y/n question, ? shows help, q or Ctrl-C quits. Each route is polled with one request in flight at a time; an unreachable broker or a refused token shows in the status bar while top keeps retrying. Rates are counter deltas of GET /api/v1/analytics/queue-ops, which replicas write every METRICS_AGGREGATE_INTERVAL_S. Needs a terminal.'

  static override examples = [
    '<%= config.bin %> top',
    '<%= config.bin %> top --server http://localhost:6632 --interval 5s',
    '<%= config.bin %> top --pane queues --queue orders',
  ]

  static override flags = {
    interval: Flags.custom<number>({
      parse: (input) => {
        const ms = parseDurationMs(input)
        if (ms < MIN_INTERVAL_MS) {
          throw new UserError(`${input} is shorter than the minimum interval of 500ms`, {
            hint: 'use e.g. 2s or 500ms',
          })
        }
        return Promise.resolve(ms)
      },
    })({
      description: 'time between polls, at least 500ms (+ and - change it while running)',
      default: DEFAULT_INTERVAL_MS,
      defaultHelp: () => Promise.resolve('2s'),
    }),
    queue: Flags.string({ description: 'start with the tables filtered to names containing this text' }),
    pane: Flags.string({ description: 'pane to start on', options: [...PANES], default: 'overview' }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Top)
    if (flags.json || flags.output !== undefined) {
      throw new UserError('queenctl top is interactive and prints no data', {
        exitCode: EXIT.user,
        hint: NO_TERMINAL_HINT,
      })
    }
    if (!process.stdout.isTTY || !process.stdin.isTTY) {
      throw new UserError('queenctl top needs a terminal (stdin and stdout)', {
        exitCode: EXIT.user,
        hint: NO_TERMINAL_HINT,
      })
    }
    const client = await this.httpClient(flags)
    // Ink and React load only for this command.
    const { renderTop } = await import('../ui/render-top.js')
    await renderTop({
      source: httpSource(client),
      initialView: initialView({ pane: flags.pane as PaneKey, filter: flags.queue, intervalMs: flags.interval }),
      color: colorEnabled(flags.color, process.env, true),
    })
    // Polls still in flight (a broker that went silent) must not hold the process until their timeout.
    this.exit(EXIT.ok)
  }
}
