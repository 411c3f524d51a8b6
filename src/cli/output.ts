/**
 * Output formats of docs/cli.md, "Output formats": `table` (two-space columns, bold header when colour is on), `wide`
 * (plus the columns marked wide), `json` (pretty, printed by oclif from the command's returned result),
 * `yaml`, `ndjson` (alias `jsonl`); detail commands print key/value YAML in `table` mode. Data goes to
 * stdout; confirmations, notes and warnings to stderr.
 */
import { Chalk, type ChalkInstance } from 'chalk'
import { stringify } from 'yaml'
import { EXIT, UserError } from './errors.js'
import { EMPTY_CELL, formatCount } from './format.js'

/** Accepted values of `-o/--output` (`jsonl` is an alias of `ndjson`). */
export const OUTPUT_CHOICES = ['table', 'wide', 'json', 'yaml', 'ndjson', 'jsonl'] as const

/** An effective output format. */
export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml' | 'ndjson'

/**
 * The effective format: `--json` is `-o json` (combined with another `-o` it is a usage error); without
 * either, `table` on a terminal and `json` when stdout is piped.
 */
export function resolveFormat(options: { output?: string; json?: boolean; stdoutIsTTY: boolean }): OutputFormat {
  // -o jsonpath=EXPR is JSON mode whose printing picks the expression's values (see renderJsonPath).
  const output =
    options.output === 'jsonl' ? 'ndjson' : options.output?.startsWith('jsonpath=') ? 'json' : options.output
  if (options.json && output !== undefined && output !== 'json') {
    throw new UserError(`--json and --output ${options.output} ask for different formats`, {
      exitCode: EXIT.user,
      hint: 'use one of them: --json is the same as --output json',
    })
  }
  if (options.json) return 'json'
  if (output !== undefined) {
    if (!(OUTPUT_CHOICES as readonly string[]).includes(output)) {
      throw new UserError(`unknown output format ${output}`, {
        hint: `use one of ${OUTPUT_CHOICES.join(', ')}, jsonpath=EXPR`,
      })
    }
    return output as OutputFormat
  }
  return options.stdoutIsTTY ? 'table' : 'json'
}

/**
 * The values `-o jsonpath=EXPR` picks (kubectl style, as the Go queenctl takes it): `.queues[0].name`, `{.items[*].id}`,
 * `$.a.b`; `[*]` fans out over an array; a leading field step on a list names the list (`.queues[0]` is `[0]`). Throws a
 * UserError naming the expression when it is not of that form.
 */
export function evaluateJsonPath(value: unknown, expression: string): unknown[] {
  let path = expression.trim()
  if (path.startsWith('{') && path.endsWith('}')) path = path.slice(1, -1).trim()
  if (path.startsWith('$')) path = path.slice(1)
  const segments = [...path.matchAll(/\.([^.[\]]+)|\[(\*|-?\d+)\]|\['([^']+)'\]/g)]
  if (segments.map((segment) => segment[0]).join('') !== path) {
    throw new UserError(`-o jsonpath=${expression}: not a path such as .queues[0].name or {.items[*].id}`, {
      hint: "use .field, [N], [*] and ['field'] steps",
    })
  }
  // A list command prints its rows where the Go queenctl printed the broker's envelope ({queues: [...]}), so the
  // README's `.queues[0].name` names the list itself: a field step on a list (which has no fields) is skipped.
  const first = segments[0]
  if (Array.isArray(value) && first !== undefined && (first[1] ?? first[3]) !== undefined) segments.shift()
  let current: unknown[] = [value]
  for (const segment of segments) current = current.flatMap((item) => step(item, segment))
  return current
}

/** One step of a jsonpath: `[*]` (segment 2 is `*`), `[N]`, `.field` or `['field']`. */
function step(item: unknown, segment: RegExpMatchArray): unknown[] {
  if (segment[2] === '*') {
    if (Array.isArray(item)) return item as unknown[]
    return item !== null && typeof item === 'object' ? Object.values(item) : []
  }
  if (segment[2] !== undefined) {
    if (!Array.isArray(item)) return []
    const index = Number(segment[2])
    const picked = (item as unknown[])[index < 0 ? item.length + index : index]
    return picked === undefined ? [] : [picked]
  }
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return []
  const key = segment[1] ?? segment[3]!
  return key in item ? [(item as Record<string, unknown>)[key]] : []
}

/** `-o jsonpath=EXPR` output: the picked values space-separated (strings bare, the rest as JSON), then a newline. */
export function renderJsonPath(value: unknown, expression: string): string {
  const picked = evaluateJsonPath(value, expression)
  return `${picked.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(' ')}\n`
}

/**
 * Whether to colour: `--color`/`--no-color` win; else `NO_COLOR` set (non-empty) → off, `CLICOLOR=0` →
 * off, `CLICOLOR_FORCE` set (not `0`) → on; otherwise on when stdout is a terminal.
 */
export function colorEnabled(flag: boolean | undefined, env: NodeJS.ProcessEnv, stdoutIsTTY: boolean): boolean {
  if (flag !== undefined) return flag
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.CLICOLOR === '0') return false
  if (env.CLICOLOR_FORCE !== undefined && env.CLICOLOR_FORCE !== '' && env.CLICOLOR_FORCE !== '0') return true
  return stdoutIsTTY
}

/** One column of a table. */
export interface Column<Row> {
  /** Header text, upper case by convention (`SEGMENT`). */
  header: string
  /** The cell: numbers are comma-grouped, null/undefined/empty print as `-`. */
  value: (row: Row) => string | number | null | undefined
  /** Shown only with `-o wide`. */
  wide?: boolean
}

/** How a table is drawn. */
export interface TableOptions {
  wide: boolean
  headers: boolean
  chalk: ChalkInstance
}

function cellText(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return EMPTY_CELL
  return typeof value === 'number' ? formatCount(value) : value.replace(/[\r\n\t]+/g, ' ')
}

/** Renders rows as columns two spaces apart; the header is bold when colour is on. Ends with a newline. */
export function renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[], options: TableOptions): string {
  const shown = columns.filter((column) => options.wide || !column.wide)
  const body = rows.map((row) => shown.map((column) => cellText(column.value(row))))
  const widths = shown.map((column, index) =>
    Math.max(options.headers ? column.header.length : 0, ...body.map((cells) => [...cells[index]!].length)),
  )
  const line = (cells: string[], style: (text: string) => string = (text) => text) =>
    cells
      .map((cell, index) => {
        const padded = index === cells.length - 1 ? cell : cell + ' '.repeat(widths[index]! - [...cell].length)
        return style(padded)
      })
      .join('  ')
      .trimEnd()
  const lines: string[] = []
  if (options.headers)
    lines.push(
      line(
        shown.map((column) => column.header),
        options.chalk.bold,
      ),
    )
  for (const cells of body) lines.push(line(cells))
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`
}

/** Key/value YAML of a detail view (`push: on`). */
export function renderDetail(entries: Record<string, unknown>): string {
  return stringify(entries, { lineWidth: 0 })
}

/** A value as YAML. */
export function renderYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0 })
}

/** Pretty JSON, two spaces, with a trailing newline. */
export function renderJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`
}

/** One compact JSON object per line. */
export function renderNdjson(rows: readonly unknown[]): string {
  return rows.map((row) => `${JSON.stringify(row)}\n`).join('')
}

/** Where output goes (the process streams; replaceable in tests). */
export interface OutputStreams {
  stdout: (text: string) => void
  stderr: (text: string) => void
}

/** The settings of one command's output. */
export interface OutputSettings {
  format: OutputFormat
  color: boolean
  quiet: boolean
  headers: boolean
}

const PROCESS_STREAMS: OutputStreams = {
  stdout: (text) => {
    process.stdout.write(text)
  },
  stderr: (text) => {
    process.stderr.write(text)
  },
}

/**
 * A command's output: data in the chosen format on stdout, confirmations (suppressed by `--quiet`),
 * notes and warnings on stderr. In `json` mode the data methods print nothing: oclif prints the
 * command's returned result (see OutputCommand.logJson), so there is one JSON path.
 */
export class Output {
  readonly settings: OutputSettings
  readonly chalk: ChalkInstance
  private readonly streams: OutputStreams

  constructor(settings: OutputSettings, streams: OutputStreams = PROCESS_STREAMS) {
    this.settings = settings
    this.streams = streams
    this.chalk = new Chalk({ level: settings.color ? 1 : 0 })
  }

  /** The effective format. */
  get format(): OutputFormat {
    return this.settings.format
  }

  /** True for `table` and `wide`. */
  get tabular(): boolean {
    return this.settings.format === 'table' || this.settings.format === 'wide'
  }

  /** Raw data on stdout. */
  write(text: string): void {
    this.streams.stdout(text)
  }

  /** A confirmation on stderr (`maintenance on`), unless --quiet. */
  confirm(text: string): void {
    if (!this.settings.quiet) this.streams.stderr(`${text}\n`)
  }

  /** An informational note on stderr, unless --quiet. */
  note(text: string): void {
    if (!this.settings.quiet) this.streams.stderr(`${text}\n`)
  }

  /** A warning on stderr; --quiet does not hide warnings. */
  warn(text: string): void {
    this.streams.stderr(`${this.chalk.yellow('warning:')} ${text}\n`)
  }

  /** A table in `table`/`wide` mode; nothing in other modes. */
  table<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): void {
    if (!this.tabular) return
    this.write(
      renderTable(rows, columns, {
        wide: this.settings.format === 'wide',
        headers: this.settings.headers,
        chalk: this.chalk,
      }),
    )
  }

  /**
   * A list: a table in `table`/`wide`, the rows' data as YAML or NDJSON, nothing in `json` (the returned
   * result is printed). `data` defaults to the rows themselves.
   */
  list<Row>(rows: readonly Row[], columns: readonly Column<Row>[], data: readonly unknown[] = rows): void {
    switch (this.settings.format) {
      case 'table':
      case 'wide':
        this.table(rows, columns)
        return
      case 'yaml':
        this.write(renderYaml(data))
        return
      case 'ndjson':
        this.write(renderNdjson(data))
        return
      case 'json':
        return
    }
  }

  /**
   * A detail view: `display` as key/value YAML in `table`/`wide`, `data` as YAML or one NDJSON line,
   * nothing in `json` (the returned result is printed).
   */
  detail(display: Record<string, unknown>, data: unknown): void {
    switch (this.settings.format) {
      case 'table':
      case 'wide':
        this.write(renderDetail(display))
        return
      case 'yaml':
        this.write(renderYaml(data))
        return
      case 'ndjson':
        this.write(renderNdjson([data]))
        return
      case 'json':
        return
    }
  }
}
