/**
 * `env list` and `env check` (docs/cli.md, "queenctl env check"): the broker's own variable table and validation
 * (src/broker/config/resolve.ts) run on this environment plus an optional env file, without starting a
 * broker; `env check` adds the spool directory and, with --pg, the PostgreSQL connection and its
 * max_connections against replicas × (DB_POOL_SIZE + 3).
 */
import { constants } from 'node:fs'
import { access, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import pg from 'pg'
import type { BrokerConfig } from '../broker/config/broker-config.js'
import { listBrokerVariables, resolveBrokerConfig } from '../broker/config/resolve.js'
import { ConfigError } from '../platform/config/config-error.js'
import { parseEnvFile, type VariableListing } from '../platform/config/resolve-variables.js'
import { EXIT, UserError } from './errors.js'
import type { Column } from './output.js'
import { externalPgClientConfig } from '../broker/config/pg-client-config.js'
import { resolvePgConnection } from './pg-connection.js'
import { meshBootProblems } from '../broker/mesh/peers.js'

/** Reads `--env-file`; a missing or unreadable file is a user error naming the flag. */
export async function readEnvFile(file: string | undefined): Promise<string | undefined> {
  if (file === undefined) return undefined
  return readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UserError(`--env-file ${file}: ${error.code ?? error.message}`, {
      hint: 'pass a readable KEY=VALUE file',
    })
  })
}

/** One row of `env list`. */
export interface EnvRow {
  name: string
  value: string | null
  source: string
  default: string
  type: string
  setAs: string | null
  secret: boolean
  description: string
}

/**
 * The rows of `env list`: the variables set (every one with `all`). Secrets stay `<set:N chars>` unless
 * `showSecrets`, which shows the text as given in the environment or the env file.
 */
export function envRows(options: {
  env: Readonly<Record<string, string | undefined>>
  envFile: string | undefined
  all: boolean
  showSecrets: boolean
}): EnvRow[] {
  const listing = listBrokerVariables({ env: options.env, envFile: options.envFile })
  const fileEntries = parseEnvFile(options.envFile ?? '').entries
  const raw = (row: VariableListing): string | undefined => {
    const name = row.setAs ?? row.name
    if (row.source === 'env') return options.env[name]
    if (row.source === 'env-file') return fileEntries.get(name)
    return row.value
  }
  return listing
    .filter((row) => options.all || row.source !== 'default')
    .map((row) => ({
      name: row.name,
      value: (row.secret && options.showSecrets ? raw(row) : row.value) ?? null,
      source: row.source,
      default: row.default,
      type: row.type,
      setAs: row.setAs ?? null,
      secret: row.secret,
      description: row.description,
    }))
}

export const ENV_COLUMNS: Column<EnvRow>[] = [
  { header: 'NAME', value: (row) => row.name },
  { header: 'VALUE', value: (row) => row.value },
  { header: 'SOURCE', value: (row) => (row.setAs ? `${row.source} (${row.setAs})` : row.source) },
  { header: 'DEFAULT', value: (row) => row.default },
  { header: 'TYPE', value: (row) => row.type, wide: true },
  { header: 'DESCRIPTION', value: (row) => row.description, wide: true },
]

/** One finding of `env check`. */
export interface CheckFinding {
  level: 'ok' | 'warning' | 'error'
  check: string
  message: string
}

/** The result of `env check`. */
export interface EnvCheckResult {
  valid: boolean
  findings: CheckFinding[]
}

/** Whether the spool directory is (or can be created) writable: the nearest existing ancestor decides. */
export async function spoolFinding(dir: string): Promise<CheckFinding> {
  let probe = path.resolve(dir)
  for (;;) {
    const info = await stat(probe).catch(() => undefined)
    if (info) {
      if (!info.isDirectory()) {
        return { level: 'error', check: 'spool', message: `FILE_BUFFER_DIR ${dir}: ${probe} is not a directory` }
      }
      try {
        await access(probe, constants.W_OK | constants.X_OK)
      } catch {
        return { level: 'error', check: 'spool', message: `FILE_BUFFER_DIR ${dir}: ${probe} is not writable` }
      }
      const how = probe === path.resolve(dir) ? 'is writable' : `can be created (in ${probe})`
      return { level: 'ok', check: 'spool', message: `${dir} ${how}` }
    }
    const parent = path.dirname(probe)
    if (parent === probe)
      return { level: 'error', check: 'spool', message: `FILE_BUFFER_DIR ${dir}: no existing parent` }
    probe = parent
  }
}

/** The pg settings of the resolved configuration; the embedded server when PG_HOST is unset. */
async function pgSettings(config: BrokerConfig, env: Record<string, string | undefined>): Promise<pg.ClientConfig> {
  const { pg: settings } = config
  if (settings.host === undefined) return resolvePgConnection(undefined, env)
  return externalPgClientConfig(settings)
}

/** Connects, reports the server version, and checks max_connections against the replicas' pools. */
export async function postgresFindings(
  config: BrokerConfig,
  env: Record<string, string | undefined>,
  replicas: number,
): Promise<CheckFinding[]> {
  let settings: pg.ClientConfig
  try {
    settings = await pgSettings(config, env)
  } catch (error) {
    return [{ level: 'error', check: 'postgres', message: (error as Error).message }]
  }
  const where = `${settings.host ?? 'embedded'}:${settings.port ?? 5432}/${settings.database ?? ''}`
  const client = new pg.Client({ ...settings, connectionTimeoutMillis: settings.connectionTimeoutMillis ?? 5000 })
  try {
    await client.connect()
    const version = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version
    const max = Number(
      (await client.query<{ max_connections: string }>('SHOW max_connections')).rows[0]!.max_connections,
    )
    const needed = replicas * (config.pg.poolSize + 3)
    const sum = `max_connections ${max}, needed ${needed} = ${replicas} replicas x (DB_POOL_SIZE ${config.pg.poolSize} + 3)`
    return [
      { level: 'ok', check: 'postgres', message: `connected to PostgreSQL ${version} at ${where}` },
      max >= needed
        ? { level: 'ok', check: 'connections', message: sum }
        : { level: 'error', check: 'connections', message: `${sum}: raise max_connections or lower DB_POOL_SIZE` },
    ]
  } catch (error) {
    return [{ level: 'error', check: 'postgres', message: `cannot connect to ${where}: ${(error as Error).message}` }]
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** Runs every check; never throws for an invalid configuration (that is a finding). */
export async function checkEnvironment(options: {
  env: Readonly<Record<string, string | undefined>>
  envFile: string | undefined
  pg: boolean
  replicas: number
}): Promise<EnvCheckResult> {
  const findings: CheckFinding[] = []
  let config: BrokerConfig | undefined
  try {
    const resolved = resolveBrokerConfig({ env: options.env, envFile: options.envFile })
    config = resolved.config
    for (const warning of resolved.warnings) findings.push({ level: 'warning', check: 'variables', message: warning })
    const set = envRows({ env: options.env, envFile: options.envFile, all: false, showSecrets: false }).length
    findings.unshift({
      level: 'ok',
      check: 'variables',
      message: `the configuration is valid (${set} variable(s) set)`,
    })
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    for (const problem of error.problems) findings.push({ level: 'error', check: 'variables', message: problem })
    for (const warning of error.warnings) findings.push({ level: 'warning', check: 'variables', message: warning })
  }
  if (config) {
    // The mesh rules serve applies before booting (open mode off loopback, unparsable peers).
    for (const problem of meshBootProblems(config))
      findings.push({ level: 'error', check: 'variables', message: problem })
    findings.push(await spoolFinding(config.spool.dir))
    if (options.pg) {
      const merged = { ...Object.fromEntries(parseEnvFile(options.envFile ?? '').entries), ...options.env }
      findings.push(...(await postgresFindings(config, merged, options.replicas)))
    }
  }
  return { valid: findings.every((finding) => finding.level !== 'error'), findings }
}

/** The error thrown when a check failed, after the findings were printed. */
export function invalidEnvironment(result: EnvCheckResult): UserError {
  const count = result.findings.filter((finding) => finding.level === 'error').length
  return new UserError(`the broker environment has ${count} problem(s)`, {
    exitCode: EXIT.user,
    code: 'invalid_environment',
    hint: 'fix the variables named above; queenctl env list --all shows every variable with its default',
  })
}
