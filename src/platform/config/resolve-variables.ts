/**
 * The configuration engine of every server in this package (docs/configuration.md): a variable table, the
 * environment, an optional env file and flags in, every value parsed by its row's rules out, with every
 * problem at once. Pure: it reads only its input. A server adds its own cross-variable rules and builds its
 * frozen config from the values (the broker: `src/broker/config/resolve.ts`).
 */
import os from 'node:os'
import { encryptionKeyProblem } from './key-format.js'
import type { HostFacts, VariableSpec, VariableType } from './variable-table.js'

/** Where a value came from, highest precedence first. */
export type ConfigSource = 'flag' | 'env' | 'env-file' | 'default'

/** Input of a resolution. */
export interface ConfigInput {
  /** The environment (usually `process.env`); only read, never modified. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Flag values by variable name, with the spelling an error names (`--port`); they win over every source. */
  readonly flags?: readonly FlagValue[]
  /** Text of the `--env-file` file (KEY=VALUE lines); it never overrides the environment. */
  readonly envFile?: string
  /** Machine facts for computed defaults; {@link currentHostFacts} when omitted (tests pass their own). */
  readonly hostFacts?: HostFacts
}

/** A value given as a command-line flag. */
export interface FlagValue {
  /** The variable it sets. */
  readonly variable: string
  /** How the user spelled it (`--port`). */
  readonly spelling: string
  readonly value: string | number | undefined
}

/** What a server's table is checked against besides its own rows. */
export interface VariableScope {
  /** The server's rows. */
  readonly table: readonly VariableSpec[]
  /** Other names that are known (read by other commands), so setting them warns of nothing. */
  readonly otherKnown?: readonly string[]
  /** Name prefixes of this server's family: an unknown name with one of them is a likely typo. */
  readonly watchedPrefixes: readonly string[]
  /** Names accepted and ignored (settings of another implementation), reported once at info. */
  readonly isIgnored?: (name: string) => boolean
  /** The info line naming the ignored variables that are set. */
  readonly ignoredLine?: (names: readonly string[]) => string
}

/** Every variable parsed, and what was found on the way. */
export interface ResolvedVariables {
  /** Parsed value per variable name (defaults included); a variable in `failed` is absent. */
  readonly values: Readonly<Record<string, unknown>>
  /** Variables whose value did not parse. */
  readonly failed: ReadonlySet<string>
  /** `config error: ...` lines. */
  readonly problems: string[]
  /** `config: ...` lines to log at warn level (alias conflicts, typos). */
  readonly warnings: string[]
  /** `config: ...` lines to log at info level (ignored variables). */
  readonly infos: string[]
}

/** Facts about this machine for computed defaults. */
export function currentHostFacts(): HostFacts {
  return {
    hostname: os.hostname(),
    homedir: os.homedir(),
    uid: process.getuid?.() ?? -1,
    platform: process.platform,
    tmpdir: os.tmpdir(),
  }
}

/** Parse `--env-file` text: `KEY=VALUE` lines, `#` comments, optional `export `, optional quotes. */
export function parseEnvFile(text: string): { entries: ReadonlyMap<string, string>; problems: string[] } {
  const entries = new Map<string, string>()
  const problems: string[] = []
  text.split(/\r?\n/).forEach((rawLine, index) => {
    const line = rawLine.trim()
    if (line === '' || line.startsWith('#')) return
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/.exec(line)
    // The line itself is never echoed: it may hold a secret.
    if (!match) return void problems.push(`config error: env file line ${index + 1} is not KEY=VALUE`)
    let value = (match[2] ?? '').trim()
    const quote = value[0]
    if (value.length >= 2 && (quote === '"' || quote === "'") && value.endsWith(quote)) value = value.slice(1, -1)
    entries.set(match[1] ?? '', value)
  })
  return { entries, problems }
}

/** A value found for a variable: its text, its source and the name it was set under (alias or flag). */
interface Found {
  readonly raw: string
  readonly source: Exclude<ConfigSource, 'default'>
  readonly setAs: string
}

/** Finds each variable's value by precedence, applying "empty means unset" and the alias rule. */
function makeLookup(input: ConfigInput, envFile: ReadonlyMap<string, string>, warnings: string[]) {
  const flagValues = new Map<string, Found>()
  for (const flag of input.flags ?? []) {
    if (flag.value !== undefined && flag.value !== '') {
      flagValues.set(flag.variable, { raw: String(flag.value), source: 'flag', setAs: flag.spelling })
    }
  }
  const layers = [
    { source: 'env' as const, get: (name: string) => input.env[name] },
    { source: 'env-file' as const, get: (name: string) => envFile.get(name) },
  ]
  return (spec: VariableSpec): Found | undefined => {
    const flag = flagValues.get(spec.name)
    if (flag) return flag
    // Layer by layer, so an alias in the environment still beats the canonical name in the env file.
    for (const { source, get } of layers) {
      const set = [spec.name, ...(spec.aliases ?? [])].flatMap((name) => {
        const raw = get(name)
        return raw === undefined || raw === '' ? [] : [{ raw, source, setAs: name }]
      })
      const [first] = set
      if (!first) continue
      const conflicting = set.find((other) => other.raw !== first.raw)
      if (first.setAs === spec.name && conflicting) {
        warnings.push(
          `config: ${conflicting.setAs} and ${spec.name} are both set to different values; using ${spec.name}`,
        )
      }
      return first
    }
    return undefined
  }
}

function knownNames(scope: VariableScope): Set<string> {
  return new Set([...scope.table.flatMap((spec) => [spec.name, ...(spec.aliases ?? [])]), ...(scope.otherKnown ?? [])])
}

function charCount(text: string): number {
  return Array.from(text).length
}

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
// Kubernetes "service links" put <SERVICE>_PORT=tcp://ip:port into every pod of the namespace; a
// Service named `pg` then collides with PG_PORT. Say so instead of a bare "not an integer".
const SERVICE_LINK_VALUE = /^(tcp|udp|sctp):\/\//
const SERVICE_LINK_NAME = /_SERVICE_HOST$|_SERVICE_PORT(_[A-Z0-9_]+)?$|_PORT_\d+_(TCP|UDP|SCTP)(_PROTO|_PORT|_ADDR)?$/

function rangeText(spec: { type: VariableType; min: number; max: number }): string {
  const show = (n: number) => (spec.type === 'decimal' && Number.isInteger(n) ? n.toFixed(1) : String(n))
  return `(${show(spec.min)}-${show(spec.max)})`
}

/** Parses one raw value by the table's rules; a problem string when it is invalid. */
function parseValue(spec: VariableSpec, found: Found): { value: unknown } | { problem: string } {
  const { raw } = found
  const where = found.source === 'env-file' ? ' (from the env file)' : ''
  const shown = raw.length > 80 ? `${raw.slice(0, 77)}...` : raw
  const bad = (what: string) => ({
    problem: `config error: ${spec.secret ? found.setAs : `${found.setAs}=${JSON.stringify(shown)}`} ${what}${where}`,
  })
  switch (spec.type) {
    case 'boolean':
      if (/^(true|1)$/i.test(raw)) return { value: true }
      if (/^(false|0)$/i.test(raw)) return { value: false }
      return bad('is not a boolean (use true, false, 1 or 0)')
    case 'integer':
    case 'decimal': {
      const pattern = spec.type === 'integer' ? /^-?\d+$/ : /^-?\d+(\.\d+)?$/
      if (!pattern.test(raw)) {
        const hint = SERVICE_LINK_VALUE.test(raw) ? ' (a Kubernetes service link? set enableServiceLinks: false)' : ''
        return bad(`is not ${spec.type === 'integer' ? 'an integer' : 'a decimal number'}${hint}`)
      }
      const value = Number(raw)
      if ((raw.startsWith('-') && spec.min >= 0) || value < spec.min || value > spec.max) {
        return bad(`is out of range ${rangeText(spec)}`)
      }
      return { value }
    }
    case 'enum': {
      const value = spec.values.find((allowed) => allowed.toLowerCase() === raw.toLowerCase())
      return value === undefined ? bad(`is not one of ${spec.values.join(', ')}`) : { value }
    }
    case 'string':
      switch (spec.format) {
        case 'aes-256-key': {
          const problem = encryptionKeyProblem(raw, found.setAs)
          return problem === undefined ? { value: raw } : { problem: `config error: ${problem}${where}` }
        }
        case 'header-name':
          return HEADER_NAME.test(raw) ? { value: raw } : bad('is not a valid HTTP header name')
        case 'http-url':
          return URL.canParse(raw) && /^https?:$/.test(new URL(raw).protocol)
            ? { value: raw }
            : bad('is not an http:// or https:// URL')
        case undefined:
          return { value: raw }
      }
  }
}

function defaultValue(spec: VariableSpec, host: HostFacts): string | number | boolean | undefined {
  if (spec.type !== 'string') return spec.default
  return typeof spec.default === 'function' ? spec.default(host) : spec.default
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution))
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

/** Typo warnings and the ignored-variables info line, over every name set in the environment or env file. */
function scanNames(
  scope: VariableScope,
  input: ConfigInput,
  envFile: ReadonlyMap<string, string>,
  warnings: string[],
  infos: string[],
) {
  const known = knownNames(scope)
  const present = new Map<string, string>([...envFile])
  for (const [name, value] of Object.entries(input.env)) if (value !== undefined) present.set(name, value)
  const ignored: string[] = []
  for (const [name, value] of [...present].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (value === '' || known.has(name)) continue
    if (scope.isIgnored?.(name)) ignored.push(name)
    else if (!scope.watchedPrefixes.some((prefix) => name.startsWith(prefix))) continue
    else if (SERVICE_LINK_NAME.test(name) || (name.endsWith('_PORT') && SERVICE_LINK_VALUE.test(value))) continue
    else {
      const scored = [...known].map((known) => ({ name: known, distance: levenshtein(name, known) }))
      const best = scored.reduce((a, b) => (b.distance < a.distance ? b : a))
      // A far-off "suggestion" misleads more than none.
      const near = best.distance <= Math.max(2, Math.floor(name.length / 3))
      warnings.push(`config: unknown variable ${name}${near ? ` (did you mean ${best.name}?)` : ''}`)
    }
  }
  if (ignored.length > 0 && scope.ignoredLine) infos.push(scope.ignoredLine(ignored))
}

/** Parses every variable of `scope` from `input`; never throws (the caller decides what a problem means). */
export function resolveVariables(scope: VariableScope, input: ConfigInput): ResolvedVariables {
  const warnings: string[] = []
  const infos: string[] = []
  const file = parseEnvFile(input.envFile ?? '')
  const problems = [...file.problems]
  const host = input.hostFacts ?? currentHostFacts()
  const lookup = makeLookup(input, file.entries, warnings)
  const values: Record<string, unknown> = {}
  const failed = new Set<string>()
  for (const spec of scope.table) {
    const found = lookup(spec)
    const parsed = found ? parseValue(spec, found) : { value: defaultValue(spec, host) }
    if ('problem' in parsed) {
      problems.push(parsed.problem)
      failed.add(spec.name)
    } else values[spec.name] = parsed.value
  }
  scanNames(scope, input, file.entries, warnings, infos)
  return { values, failed, problems, warnings, infos }
}

/** `<set:N chars>` or `<unset>`: how a secret is ever shown. */
export function redactSecret(value: string | undefined): string {
  return value === undefined ? '<unset>' : `<set:${charCount(value)} chars>`
}

/** One row of `queenctl env list`. */
export interface VariableListing {
  /** Canonical name. */
  readonly name: string
  /** Accepted older names. */
  readonly aliases: readonly string[]
  /** Value type. */
  readonly type: VariableType
  /** One-line meaning. */
  readonly description: string
  /** Whether the value is redacted. */
  readonly secret: boolean
  /** The default as documented (`30000`, `the host name`, `unset`). */
  readonly default: string
  /** The value in effect as text (secrets as `<set:N chars>`); undefined when unset. Not validated. */
  readonly value: string | undefined
  /** Where the value came from. */
  readonly source: ConfigSource
  /** The name or flag it was read from, when not the canonical name (`PG_DB`, `--port`). */
  readonly setAs?: string
}

/** Every variable with its default, current value and source, for `queenctl env list`. Never throws. */
export function listVariables(scope: VariableScope, input: ConfigInput): VariableListing[] {
  const host = input.hostFacts ?? currentHostFacts()
  const lookup = makeLookup(input, parseEnvFile(input.envFile ?? '').entries, [])
  return scope.table.map((spec) => {
    const found = lookup(spec)
    const fallback = defaultValue(spec, host)
    const text = found?.raw ?? (fallback === undefined ? undefined : String(fallback))
    return {
      name: spec.name,
      aliases: spec.aliases ?? [],
      type: spec.type,
      description: spec.description,
      secret: spec.secret === true,
      default: spec.defaultText ?? (spec.default === undefined ? 'unset' : String(fallback)),
      value: spec.secret && text !== undefined ? redactSecret(text) : text,
      source: found?.source ?? 'default',
      ...(found && found.setAs !== spec.name ? { setAs: found.setAs } : {}),
    }
  })
}
