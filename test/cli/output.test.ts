import { Chalk } from 'chalk'
import { describe, expect, it } from 'vitest'
import { UserError } from '../../src/cli/errors.js'
import {
  colorEnabled,
  evaluateJsonPath,
  Output,
  renderDetail,
  renderJsonPath,
  renderNdjson,
  renderTable,
  resolveFormat,
  type Column,
} from '../../src/cli/output.js'

interface Row {
  name: string
  count: number | null
  note?: string
}

const columns: Column<Row>[] = [
  { header: 'NAME', value: (row) => row.name },
  { header: 'COUNT', value: (row) => row.count },
  { header: 'NOTE', value: (row) => row.note, wide: true },
]
const rows: Row[] = [
  { name: 'orders', count: 12345, note: 'busy' },
  { name: 'q', count: null },
]
const plain = new Chalk({ level: 0 })

describe('renderTable', () => {
  it('separates columns by two spaces, groups counts and prints - for empty cells', () => {
    expect(renderTable(rows, columns, { wide: false, headers: true, chalk: plain })).toBe(
      'NAME    COUNT\norders  12,345\nq       -\n',
    )
  })

  it('adds the wide columns with -o wide and omits the header with --no-headers', () => {
    expect(renderTable(rows, columns, { wide: true, headers: false, chalk: plain })).toBe(
      'orders  12,345  busy\nq       -       -\n',
    )
  })

  it('makes the header bold when colour is on, and only the header', () => {
    const text = renderTable(rows, columns, { wide: false, headers: true, chalk: new Chalk({ level: 1 }) })
    const [header, first] = text.split('\n')
    expect(header).toContain('\u001b[1mNAME')
    expect(first).toBe('orders  12,345')
  })
})

describe('resolveFormat', () => {
  it('defaults to table on a terminal and json when piped', () => {
    expect(resolveFormat({ stdoutIsTTY: true })).toBe('table')
    expect(resolveFormat({ stdoutIsTTY: false })).toBe('json')
  })

  it('honours -o, maps jsonl to ndjson, and treats --json as -o json', () => {
    expect(resolveFormat({ output: 'wide', stdoutIsTTY: false })).toBe('wide')
    expect(resolveFormat({ output: 'jsonl', stdoutIsTTY: true })).toBe('ndjson')
    expect(resolveFormat({ json: true, stdoutIsTTY: true })).toBe('json')
    expect(resolveFormat({ json: true, output: 'json', stdoutIsTTY: true })).toBe('json')
  })

  it('refuses --json combined with another -o as a user error', () => {
    expect(() => resolveFormat({ json: true, output: 'yaml', stdoutIsTTY: true })).toThrow(UserError)
    expect(() => resolveFormat({ json: true, output: 'yaml', stdoutIsTTY: true })).toThrow(/--json and --output yaml/)
  })
})

describe('colorEnabled', () => {
  it('lets --color / --no-color win over everything', () => {
    expect(colorEnabled(true, { NO_COLOR: '1' }, false)).toBe(true)
    expect(colorEnabled(false, { CLICOLOR_FORCE: '1' }, true)).toBe(false)
  })

  it('reads NO_COLOR, then CLICOLOR=0, then CLICOLOR_FORCE, then the terminal', () => {
    expect(colorEnabled(undefined, { NO_COLOR: '1', CLICOLOR_FORCE: '1' }, true)).toBe(false)
    expect(colorEnabled(undefined, { CLICOLOR: '0' }, true)).toBe(false)
    expect(colorEnabled(undefined, { CLICOLOR_FORCE: '1' }, false)).toBe(true)
    expect(colorEnabled(undefined, { CLICOLOR_FORCE: '0' }, false)).toBe(false)
    expect(colorEnabled(undefined, {}, true)).toBe(true)
    expect(colorEnabled(undefined, {}, false)).toBe(false)
    expect(colorEnabled(undefined, { NO_COLOR: '' }, true)).toBe(true)
  })
})

describe('detail, ndjson and the Output streams', () => {
  it('prints key/value YAML for detail views', () => {
    expect(renderDetail({ push: 'on', pop: 'off', buffered: 12 })).toBe('push: on\npop: off\nbuffered: 12\n')
  })

  it('prints one compact JSON object per line', () => {
    expect(renderNdjson([{ a: 1 }, { b: [1, 2] }])).toBe('{"a":1}\n{"b":[1,2]}\n')
  })

  function capture(format: 'table' | 'yaml' | 'ndjson' | 'json', quiet = false) {
    const out = { stdout: '', stderr: '' }
    const output = new Output(
      { format, color: false, quiet, headers: true },
      { stdout: (text) => (out.stdout += text), stderr: (text) => (out.stderr += text) },
    )
    return { output, out }
  }

  it('sends data to stdout and confirmations to stderr, which --quiet silences but not warnings', () => {
    const { output, out } = capture('table', true)
    output.detail({ push: 'on' }, { push: true })
    output.confirm('maintenance on')
    output.warn('the spool is full')
    expect(out.stdout).toBe('push: on\n')
    expect(out.stderr).toBe('warning: the spool is full\n')
  })

  it('renders the data, not the display, as YAML and NDJSON, and nothing for json (oclif prints the result)', () => {
    const yaml = capture('yaml')
    yaml.output.detail({ push: 'on' }, { push: true })
    expect(yaml.out.stdout).toBe('push: true\n')
    const ndjson = capture('ndjson')
    ndjson.output.list(rows, columns)
    expect(ndjson.out.stdout).toBe('{"name":"orders","count":12345,"note":"busy"}\n{"name":"q","count":null}\n')
    const json = capture('json')
    json.output.list(rows, columns)
    json.output.detail({ push: 'on' }, { push: true })
    expect(json.out.stdout).toBe('')
  })
})

describe('-o jsonpath=EXPR', () => {
  const value = {
    queues: [
      { name: 'orders', size: 3 },
      { name: 'audit', size: 0 },
    ],
    total: 2,
  }
  it('picks values kubectl style: fields, indexes, [*] fan-out, braces and $', () => {
    expect(renderJsonPath(value, '.queues[0].name')).toBe('orders\n')
    expect(renderJsonPath(value, '{.queues[*].name}')).toBe('orders audit\n')
    expect(renderJsonPath(value, '$.total')).toBe('2\n')
    expect(renderJsonPath(value, ".queues[-1]['size']")).toBe('0\n')
    expect(renderJsonPath(value, '.queues[0]')).toBe('{"name":"orders","size":3}\n')
    expect(renderJsonPath(value, '.missing')).toBe('\n')
  })

  it("on a list (what a list command prints), a leading field names the list, as the Go CLI's envelope did", () => {
    const rows = value.queues
    expect(renderJsonPath(rows, '.queues[0].name')).toBe('orders\n')
    expect(renderJsonPath(rows, '{.queues[*].name}')).toBe('orders audit\n')
    expect(renderJsonPath(rows, '[1].name')).toBe('audit\n')
    // Only the first step: a field of a row is still a field.
    expect(renderJsonPath(rows, '.queues[0].nothing')).toBe('\n')
  })

  it('refuses what is not a path, naming the expression', () => {
    expect(() => evaluateJsonPath(value, 'queues)')).toThrow('-o jsonpath=queues): not a path')
  })
})
