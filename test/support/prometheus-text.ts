/**
 * A strict parser of the Prometheus text exposition format 0.0.4, for tests of GET /metrics/prometheus.
 * It throws on anything a Prometheus server would reject or that hides a bug: bad metric or label names,
 * bad escapes, unparsable values, a sample before its family's TYPE line, a family split in two, a repeated
 * TYPE or HELP, a duplicate series, histogram buckets that are not cumulative or disagree with `_count`.
 */

/** One sample line. */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

/** One metric family. */
export interface Family {
  name: string
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped'
  help: string | undefined
  samples: Sample[]
}

/** A parsed exposition. */
export interface Exposition {
  families: Map<string, Family>
  /** The value of the one sample of `name` whose labels include `labels`; throws unless exactly one matches. */
  value(name: string, labels?: Record<string, string>): number
  /** Every sample named `name`. */
  samples(name: string): Sample[]
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped'])

function fail(line: number, message: string): never {
  throw new Error(`prometheus text line ${line}: ${message}`)
}

/**
 * A sample value as Prometheus reads it (Go's strconv.ParseFloat): decimal floats, and NaN, Inf and
 * Infinity in any case with an optional sign (prom-client writes `Nan` for an event-loop mean without samples).
 */
function parseValue(text: string, line: number): number {
  if (/^[+-]?nan$/i.test(text)) return Number.NaN
  if (/^\+?inf(inity)?$/i.test(text)) return Number.POSITIVE_INFINITY
  if (/^-inf(inity)?$/i.test(text)) return Number.NEGATIVE_INFINITY
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) fail(line, `bad value ${JSON.stringify(text)}`)
  return Number(text)
}

/** Parses `{a="1",b="x\"y"}` starting at `start` (the `{`); returns the labels and the index after `}`. */
function parseLabels(text: string, start: number, line: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {}
  let i = start + 1
  while (true) {
    if (text[i] === '}') return { labels, end: i + 1 }
    const eq = text.indexOf('=', i)
    if (eq < 0) fail(line, 'label without =')
    const name = text.slice(i, eq)
    if (!LABEL_NAME.test(name)) fail(line, `bad label name ${JSON.stringify(name)}`)
    if (name in labels) fail(line, `label ${name} repeated`)
    if (text[eq + 1] !== '"') fail(line, `label ${name} value not quoted`)
    let value = ''
    let j = eq + 2
    for (; j < text.length; j++) {
      const ch = text[j]
      if (ch === '\\') {
        const next = text[j + 1]
        if (next === '\\') value += '\\'
        else if (next === '"') value += '"'
        else if (next === 'n') value += '\n'
        else fail(line, `bad escape \\${next ?? ''} in label ${name}`)
        j += 1
      } else if (ch === '"') {
        break
      } else if (ch === '\n') {
        fail(line, 'newline in label value')
      } else {
        value += ch
      }
    }
    if (j >= text.length) fail(line, `unterminated value of label ${name}`)
    labels[name] = value
    i = j + 1
    if (text[i] === ',') i += 1
    else if (text[i] !== '}') fail(line, `expected , or } after label ${name}`)
  }
}

/** The family a sample name belongs to, given the family types seen so far. */
function familyOf(sampleName: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(sampleName)
  if (direct) return direct
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sampleName.endsWith(suffix)) continue
    const family = families.get(sampleName.slice(0, -suffix.length))
    if (!family) continue
    if (family.type === 'histogram') return family
    if (family.type === 'summary' && suffix !== '_bucket') return family
  }
  return undefined
}

function checkHistogram(family: Family): void {
  const series = new Map<string, { buckets: { le: number; value: number }[]; count?: number }>()
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels
    const key = JSON.stringify(Object.entries(rest).sort())
    const entry = series.get(key) ?? { buckets: [] }
    if (sample.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${family.name}: bucket without le`)
      entry.buckets.push({ le: parseValue(le, 0), value: sample.value })
    } else if (sample.name.endsWith('_count')) {
      entry.count = sample.value
    }
    series.set(key, entry)
  }
  for (const [key, entry] of series) {
    const sorted = [...entry.buckets].sort((a, b) => a.le - b.le)
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i]!.value < sorted[i - 1]!.value) throw new Error(`${family.name}${key}: buckets not cumulative`)
    }
    const inf = sorted[sorted.length - 1]
    if (!inf || inf.le !== Number.POSITIVE_INFINITY) throw new Error(`${family.name}${key}: no +Inf bucket`)
    if (entry.count !== inf.value) throw new Error(`${family.name}${key}: _count differs from the +Inf bucket`)
  }
}

/** Parses an exposition strictly. */
export function parsePrometheusText(text: string): Exposition {
  const families = new Map<string, Family>()
  const finished = new Set<string>()
  const typed = new Set<string>()
  const seriesSeen = new Set<string>()
  let current: Family | undefined
  const lines = text.split('\n')
  lines.forEach((raw, index) => {
    const line = index + 1
    if (raw.trim() === '') return
    if (raw.startsWith('#')) {
      const match = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(raw)
      if (!match) return // any other comment
      const [, keyword, name = '', rest = ''] = match
      if (!METRIC_NAME.test(name)) fail(line, `bad metric name ${JSON.stringify(name)}`)
      let family = families.get(name)
      if (family && family.samples.length > 0) fail(line, `${keyword} of ${name} after its samples`)
      if (!family) {
        family = { name, type: 'untyped', help: undefined, samples: [] }
        families.set(name, family)
      }
      if (keyword === 'TYPE') {
        if (!TYPES.has(rest)) fail(line, `bad type ${JSON.stringify(rest)}`)
        if (typed.has(name)) fail(line, `second TYPE for ${name}`)
        typed.add(name)
        family.type = rest as Family['type']
      } else {
        if (family.help !== undefined) fail(line, `second HELP for ${name}`)
        if (/\\[^\\n]/.test(rest.replace(/\\\\/g, ''))) fail(line, `bad escape in HELP of ${name}`)
        family.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\')
      }
      return
    }
    const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(raw)
    if (!nameMatch) fail(line, `bad sample line ${JSON.stringify(raw)}`)
    const name = nameMatch[0]
    let rest = raw.slice(name.length)
    let labels: Record<string, string> = {}
    if (rest.startsWith('{')) {
      const parsed = parseLabels(raw, name.length, line)
      labels = parsed.labels
      rest = raw.slice(parsed.end)
    }
    const parts = rest.trim().split(/ +/)
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2)
      fail(line, `bad sample line ${JSON.stringify(raw)}`)
    const value = parseValue(parts[0]!, line)
    if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1])) fail(line, `bad timestamp ${parts[1]}`)
    const family = familyOf(name, families)
    if (!family || !typed.has(family.name)) fail(line, `sample ${name} before its TYPE line`)
    if (current !== family) {
      if (current) finished.add(current.name)
      if (finished.has(family.name)) fail(line, `samples of ${family.name} are not contiguous`)
      current = family
    }
    const seriesKey = `${name}${JSON.stringify(Object.entries(labels).sort())}`
    if (seriesSeen.has(seriesKey)) fail(line, `duplicate series ${seriesKey}`)
    seriesSeen.add(seriesKey)
    family.samples.push({ name, labels, value })
  })
  for (const family of families.values())
    if (family.type === 'histogram' && family.samples.length > 0) checkHistogram(family)

  const samples = (name: string) =>
    [...families.values()].flatMap((family) => family.samples).filter((s) => s.name === name)
  return {
    families,
    samples,
    value(name, wanted = {}) {
      const matching = samples(name).filter((sample) =>
        Object.entries(wanted).every(([key, value]) => sample.labels[key] === value),
      )
      if (matching.length !== 1) {
        throw new Error(`${name}${JSON.stringify(wanted)}: ${matching.length} matching samples`)
      }
      return matching[0]!.value
    },
  }
}
