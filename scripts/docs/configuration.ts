/**
 * docs/configuration.md, generated from the broker's variable table (src/broker/config/variables.ts, rows typed by src/platform/config/variable-table.ts): the
 * hand-written introduction below, then one table per group of variables, the C++-engine variables the
 * broker accepts and ignores, and the variables of the other commands. `npm run docs` writes it; a test
 * fails when the committed file differs from what this renders (docs/conventions.md, "Generated documents").
 */
import {
  CLI_VARIABLES,
  IGNORED_VARIABLE_PREFIXES,
  IGNORED_VARIABLES,
  VARIABLES,
} from '../../src/broker/config/variables.js'
import { GATEWAY_VARIABLES } from '../../src/gateway/config/variables.js'
import type { VariableSpec } from '../../src/platform/config/variable-table.js'

/** Where the generated file lives, relative to the repository root. */
export const CONFIGURATION_DOC = 'docs/configuration.md'

/**
 * The groups of the table, each named by its first variable (the table lists variables in group order, so
 * a variable added to the table lands in the group of the row before it) and pointing at the runbook.
 */
const GROUPS: readonly { first: string; title: string; about: string }[] = [
  { first: 'PORT', title: 'Server', about: 'The listener, the schema at boot, pop defaults and request limits.' },
  {
    first: 'QUEEN_DATA_DIR',
    title: 'Embedded PostgreSQL',
    about:
      'Used only when `PG_HOST` is unset ([operations.md, "Embedded PostgreSQL"](operations.md#embedded-postgresql)).',
  },
  {
    first: 'PG_HOST',
    title: 'PostgreSQL connection',
    about:
      'An external PostgreSQL ([operations.md, "PostgreSQL requirements"](operations.md#postgresql-requirements), "Pool sizing", "TLS to PostgreSQL"). The CLI commands that talk to PostgreSQL directly read the same variables.',
  },
  {
    first: 'POP_WAIT_INITIAL_INTERVAL_MS',
    title: 'Pop waiting',
    about:
      'The re-check schedule of parked long-polls ([semantics.md, "Long-poll"](semantics.md#long-poll)); wake-ups re-check at once whatever it says.',
  },
  {
    first: 'FILE_BUFFER_DIR',
    title: 'Spool',
    about: 'The disk spool ([operations.md, "The disk spool"](operations.md#the-disk-spool)).',
  },
  {
    first: 'RETENTION_INTERVAL',
    title: 'Background jobs and convergence',
    about:
      'Retention, eviction, lease reclaim, stats and metrics, and how often replicas re-read shared state ([semantics.md, "Retention, eviction and cleanup"](semantics.md#retention-eviction-and-cleanup)).',
  },
  {
    first: 'QUEEN_MESH_PORT',
    title: 'Mesh',
    about: 'The TCP mesh between replicas ([operations.md, "The mesh"](operations.md#the-mesh)).',
  },
  {
    first: 'JWT_ENABLED',
    title: 'Authentication (JWT)',
    about: 'Off by default ([operations.md, "Authentication"](operations.md#authentication)).',
  },
  {
    first: 'QUEEN_ENCRYPTION_KEY',
    title: 'Encryption',
    about: 'Encryption at rest ([operations.md, "Encryption at rest"](operations.md#encryption-at-rest)).',
  },
  {
    first: 'QUEEN_TENANCY_HEADER',
    title: 'Tenancy',
    about: 'Queues scoped per tenant ([operations.md, "Tenancy"](operations.md#tenancy)).',
  },
  {
    first: 'LOG_LEVEL',
    title: 'Logs and metrics',
    about: '[operations.md, "Logs"](operations.md#logs) and "Metrics".',
  },
  {
    first: 'QUEEN_TEST_HOOKS',
    title: 'Test only',
    about: 'Never set in production: the boot log flags it as a warning.',
  },
]

const INTRODUCTION = `# Configuration

The broker, \`queenctl serve\`, reads its configuration from the environment. This page lists every variable
it reads, with its default and the values it accepts. It is generated from the variable table in
\`src/broker/config/variables.ts\`, the same table the parser, the boot log, \`queenctl env list\` and
\`queenctl env check\` read, so it cannot drift from them: \`npm run docs\` rewrites it, and a test fails when
the committed file is out of date. What the settings do in practice is in [operations.md](operations.md).

## How configuration is read

- **Sources, by precedence:** \`queenctl serve\` flags (\`--port\`, \`--host\`, \`--log-level\`, \`--data-dir\`)
  over the environment, over \`--env-file FILE\` (\`KEY=VALUE\` lines, \`#\` comments, an optional \`export \`
  and quotes; it never overrides a variable already in the environment), over the defaults below. The
  result is checked once and frozen; nothing reads the environment again.
- **Empty means unset.** \`VAR=\` behaves as if \`VAR\` were absent, for every variable.
- **Strict booleans.** \`true\` and \`false\` in any letter case, \`1\` and \`0\`; anything else stops the boot
  naming the variable: \`config error: JWT_ENABLED="yes" is not a boolean (use true, false, 1 or 0)\`.
- **Strict numbers.** Integers are plain decimal digits within the variable's range; decimals (only
  \`POP_WAIT_BACKOFF_MULTIPLIER\`) are plain decimal notation. Millisecond settings stop at 2147483647 (Node's
  timers overflow above it).
- **Every problem at once.** All invalid variables are reported, then the process exits 1.
- **Secrets are never echoed**, not even in errors: \`QUEEN_ENCRYPTION_KEY has 65 characters; expected 64
  hexadecimal characters (a trailing newline?)\`. Listings show \`<set:N chars>\`.
- **Aliases.** Older names are accepted for a few variables (listed with them below). When both names are set
  to different values, the canonical name wins and one warning names both.
- **Typos.** An unknown variable starting with \`QUEEN_\`, \`PG_\`, \`DB_\` or \`JWT_\` logs a warning with the
  nearest known name: \`config: unknown variable QUEEN_ENCRYPTON_KEY (did you mean QUEEN_ENCRYPTION_KEY?)\`.
- **Settings a subsystem cannot honour stop the boot** naming the variable (a JWT key that cannot verify, open
  mesh on a public address, a tenancy claim without a tenancy header); they are never accepted and ignored.

\`queenctl serve --print-config\` prints the effective configuration and exits; \`queenctl env list\` shows
every variable with its value, source and default (\`--all\` includes those left at their default);
\`queenctl env check\` validates an environment without starting a broker, and with \`--pg\` connects and checks
\`max_connections\` against the pool.

\`\`\`sh
queenctl env list --all --env-file /etc/queen.env
queenctl env check --env-file /etc/queen.env --pg --replicas 3
\`\`\`

## Variables

In the tables, a range is inclusive; "secret" variables are never printed.
`

/** Markdown-safe text for a table cell: `<` would open an HTML tag, `|` would end the cell. */
const cell = (text: string) => text.replace(/</g, '&lt;').replace(/\|/g, '\\|')

/** Code-formatted, with the aliases the parser also accepts. */
function nameCell(spec: VariableSpec): string {
  const aliases = spec.aliases?.length ? ` (alias ${spec.aliases.map((alias) => `\`${alias}\``).join(', ')})` : ''
  return `\`${spec.name}\`${aliases}`
}

function defaultCell(spec: VariableSpec): string {
  if (spec.defaultText !== undefined) return cell(spec.defaultText)
  if (spec.type === 'string' && typeof spec.default === 'function') {
    throw new Error(`${spec.name}: a default computed from the host needs defaultText, the text the docs show`)
  }
  if (spec.default === undefined) return 'unset'
  return `\`${String(spec.default)}\``
}

const FORMATS = {
  'aes-256-key': '64 hexadecimal characters',
  'header-name': 'an HTTP header name',
  'http-url': 'an http(s) URL',
} as const

function valuesCell(spec: VariableSpec): string {
  switch (spec.type) {
    case 'integer':
      return `integer ${spec.min}-${spec.max}`
    case 'decimal':
      return `decimal ${spec.min}-${spec.max}`
    case 'boolean':
      return 'boolean'
    case 'enum':
      return spec.values.map((value) => `\`${value}\``).join(', ')
    case 'string':
      return spec.format === undefined ? 'text' : FORMATS[spec.format]
  }
}

function row(spec: VariableSpec): string {
  const secret = spec.secret ? ' (secret)' : ''
  return `| ${nameCell(spec)} | ${defaultCell(spec)} | ${valuesCell(spec)} | ${cell(spec.description)}${secret} |`
}

/** The table split at each group's first variable; every variable belongs to exactly one group. */
function grouped(table: readonly VariableSpec[]): { title: string; about: string; rows: VariableSpec[] }[] {
  const starts = new Map(GROUPS.map((group) => [group.first, group]))
  const first = table[0]
  if (!first || !starts.has(first.name)) throw new Error(`the first variable must open a group in ${CONFIGURATION_DOC}`)
  const groups: { title: string; about: string; rows: VariableSpec[] }[] = []
  for (const spec of table) {
    const start = starts.get(spec.name)
    if (start) groups.push({ title: start.title, about: start.about, rows: [] })
    groups.at(-1)!.rows.push(spec)
  }
  const missing = GROUPS.filter((group) => !table.some((spec) => spec.name === group.first))
  if (missing.length > 0) {
    throw new Error(`groups open at variables the table no longer has: ${missing.map((g) => g.first).join(', ')}`)
  }
  return groups
}

/** The whole document for a variable table (the broker's by default). */
export function renderConfigurationDoc(
  table: readonly VariableSpec[] = VARIABLES,
  gateway: readonly VariableSpec[] = GATEWAY_VARIABLES,
): string {
  const parts = [INTRODUCTION]
  for (const group of grouped(table)) {
    parts.push(`### ${group.title}\n\n${group.about}\n`)
    parts.push('| Variable | Default | Values | Meaning |\n|---|---|---|---|\n' + group.rows.map(row).join('\n') + '\n')
  }
  const prefixes = IGNORED_VARIABLE_PREFIXES.map((prefix) => `\`${prefix}*\``)
  parts.push(
    '### Accepted and ignored\n\n' +
      "These tuned the reference broker's C++ engine and mean nothing here. They are accepted so existing " +
      'manifests keep working, and one info line lists those present: `config: ignored variables ' +
      'NUM_WORKERS,SIDECAR_POOL_SIZE (C++ engine tuning; no effect)`.\n\n' +
      [...IGNORED_VARIABLES.map((name) => `\`${name}\``), ...prefixes].join(', ') +
      '.\n',
  )
  parts.push(
    '### Variables of the other commands\n\n' +
      'Read by the `queenctl` commands other than `serve` ([cli.md, "Global flags"](cli.md#global-flags)); a ' +
      'broker sharing their environment knows them and does not warn: ' +
      CLI_VARIABLES.map((name) => `\`${name}\``).join(', ') +
      '.\n',
  )
  parts.push(
    '## The gateway\n\n' +
      '`queenctl proxy serve` ([gateway.md](gateway.md)) reads only `PROXY_*` variables, parsed by the same rules as ' +
      "the broker's (strict values, every problem at once, typo warnings for the `PROXY_` prefix), so a gateway " +
      "beside a broker never picks up the broker's `PG_*` settings. Flags `--port`, `--host` and `--upstreams` " +
      'override `PROXY_PORT`, `PROXY_HOST` and `PROXY_UPSTREAMS`; `proxy serve --print-config` prints the ' +
      'effective configuration. The management commands (`proxy tenant`, `proxy apikey`) read the `PROXY_PG_*` and ' +
      '`PROXY_DATA_DIR` rows to find the same database.\n',
  )
  parts.push('| Variable | Default | Values | Meaning |\n|---|---|---|---|\n' + gateway.map(row).join('\n') + '\n')
  return parts.join('\n')
}
