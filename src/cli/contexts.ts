/**
 * The contexts file (docs/cli.md, "The contexts file"), compatible with the Go CLI's `~/.queen/config.yaml`, and the
 * resolution of server, token, tenant and TLS settings (docs/cli.md, "Resolution order"). Unknown keys are kept in the
 * parsed types; contexts-writer.ts edits the file as a YAML document so they survive a write.
 */
import { readFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { EXIT, UserError } from './errors.js'
import { readKeyringToken } from './keyring.js'

/** The broker a command talks to when nothing names one. */
export const DEFAULT_SERVER = 'http://localhost:6632'
/** The tenancy header when neither the context nor QUEEN_TENANCY_HEADER names one. */
export const DEFAULT_TENANCY_HEADER = 'X-Queen-Tenant'

/** One entry of `contexts:`. Keys we do not know are kept (files shared with the Go CLI survive). */
export interface ContextEntry {
  name: string
  /** Broker base URL, without `/api/v1`. */
  server?: string
  /** Where the token comes from: `env`, `env:VAR`, `file:///path`, `literal:x`, a bare literal, or empty. */
  'token-ref'?: string
  /** Skip TLS certificate verification. */
  insecure?: boolean
  /** Tenant sent in the tenancy header (ours). */
  tenant?: string
  /** Name of the tenancy header (ours); default X-Queen-Tenant. */
  'tenancy-header'?: string
  /** DSN reference for PostgreSQL-direct commands (ours): `env:VAR`, `file:///path` or `literal:dsn`. */
  database?: string
  [key: string]: unknown
}

/** The whole file. */
export interface ContextsFile {
  'current-context'?: string
  contexts: ContextEntry[]
  [key: string]: unknown
}

/** Path of the contexts file: `--config` > `QUEEN_CONFIG` > `~/.queen/config.yaml`. */
export function contextsPath(flag: string | undefined, env: NodeJS.ProcessEnv, home: string = os.homedir()): string {
  const chosen = flag ?? (env.QUEEN_CONFIG === '' ? undefined : env.QUEEN_CONFIG)
  return chosen ?? path.join(home, '.queen', 'config.yaml')
}

function invalid(file: string, what: string): UserError {
  return new UserError(`${file}: ${what}`, {
    exitCode: EXIT.user,
    hint: 'fix the contexts file, or point --config / QUEEN_CONFIG at another one',
  })
}

/** Parses the text of a contexts file; throws a UserError naming the file when it is malformed. */
export function parseContextsFile(text: string, file: string): ContextsFile {
  let document: unknown
  try {
    document = parse(text)
  } catch (error) {
    throw invalid(file, `not valid YAML (${(error as Error).message.split('\n')[0] ?? ''})`)
  }
  if (document === null || document === undefined) return { contexts: [] }
  if (typeof document !== 'object' || Array.isArray(document)) throw invalid(file, 'expected a mapping at the top')
  const raw = document as Record<string, unknown>
  const current = raw['current-context']
  if (current !== undefined && current !== null && typeof current !== 'string') {
    throw invalid(file, 'current-context must be a string')
  }
  const list = raw.contexts ?? []
  if (!Array.isArray(list)) throw invalid(file, 'contexts must be a list')
  const contexts = list.map((item: unknown, index): ContextEntry => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw invalid(file, `contexts[${index}] must be a mapping`)
    }
    const entry = item as Record<string, unknown>
    if (typeof entry.name !== 'string' || entry.name === '') throw invalid(file, `contexts[${index}] has no name`)
    for (const key of ['server', 'token-ref', 'tenant', 'tenancy-header', 'database']) {
      if (entry[key] !== undefined && entry[key] !== null && typeof entry[key] !== 'string') {
        throw invalid(file, `contexts[${index}].${key} must be a string`)
      }
    }
    if (entry.insecure !== undefined && entry.insecure !== null && typeof entry.insecure !== 'boolean') {
      throw invalid(file, `contexts[${index}].insecure must be true or false`)
    }
    return entry as ContextEntry
  })
  const result: ContextsFile = { ...raw, contexts }
  if (typeof current === 'string') result['current-context'] = current
  else delete result['current-context']
  return result
}

/** Reads the contexts file; a missing file is an empty configuration. */
export async function loadContextsFile(file: string): Promise<ContextsFile> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { contexts: [] }
    throw new UserError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
      exitCode: EXIT.user,
      hint: 'point --config / QUEEN_CONFIG at a readable file',
    })
  }
  return parseContextsFile(text, file)
}

/**
 * The context in use: `--context` > `QUEEN_CONTEXT` (both arrive as `name`) > `current-context` > none.
 * An unknown name is a user error.
 */
export function selectContext(
  file: ContextsFile,
  name: string | undefined,
  configPath: string,
): ContextEntry | undefined {
  const wanted = name ?? file['current-context']
  if (wanted === undefined || wanted === '') return undefined
  const found = file.contexts.find((context) => context.name === wanted)
  if (!found) {
    const known = file.contexts.map((context) => context.name)
    throw new UserError(`context "${wanted}" not found in ${configPath}`, {
      exitCode: EXIT.user,
      hint: known.length > 0 ? `known contexts: ${known.join(', ')}` : 'the contexts file defines no contexts',
    })
  }
  return found
}

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]
  return value === undefined || value === '' ? undefined : value
}

function tokenError(context: string, message: string, hint: string): UserError {
  return new UserError(`context "${context}": ${message}`, { exitCode: EXIT.auth, code: 'auth_error', hint })
}

async function readFileRef(ref: string, what: string, onError: (message: string) => UserError): Promise<string> {
  let file: string
  try {
    file = fileURLToPath(ref)
  } catch {
    throw onError(`${what} ${ref} is not an absolute file:// URL`)
  }
  try {
    return (await readFile(file, 'utf8')).trim()
  } catch (error) {
    throw onError(`cannot read ${what} file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`)
  }
}

/**
 * Resolves a `token-ref`: empty → anonymous; `env` → QUEEN_TOKEN; `env:VAR`; `file:///absolute/path`
 * (trimmed contents); `literal:<token>`; any other string is a literal. `keychain://<id>` is read from the system
 * keyring (keyring.ts), where there is one. Unreadable references exit 3.
 */
export async function resolveTokenRef(
  ref: string | undefined,
  contextName: string,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  if (ref === undefined || ref.trim() === '') return undefined
  const reset = `re-run queenctl config set-context ${contextName} --token-ref ..., or set QUEEN_TOKEN`
  if (ref === 'env' || ref.startsWith('env:')) {
    const variable = ref === 'env' ? 'QUEEN_TOKEN' : ref.slice('env:'.length)
    const value = envValue(env, variable)
    if (value === undefined) {
      throw tokenError(contextName, `token-ref ${ref}: ${variable} is not set`, `export ${variable}=<token>`)
    }
    return value
  }
  if (ref.startsWith('file://')) {
    return readFileRef(ref, 'token', (message) => tokenError(contextName, message, reset))
  }
  if (ref.startsWith('keychain://')) {
    try {
      return await readKeyringToken(ref.slice('keychain://'.length))
    } catch (error) {
      throw tokenError(contextName, `token-ref ${ref}: ${(error as Error).message}`, reset)
    }
  }
  if (ref.startsWith('literal:')) return ref.slice('literal:'.length)
  return ref
}

/**
 * Resolves a context's `database` reference (`env:VAR`, `file:///path`, `literal:<dsn>`) for
 * PostgreSQL-direct commands; undefined when the context has none.
 */
export async function resolveDatabaseRef(
  ref: string | undefined,
  contextName: string,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  if (ref === undefined || ref.trim() === '') return undefined
  const onError = (message: string) =>
    new UserError(`context "${contextName}": ${message}`, {
      exitCode: EXIT.user,
      hint: 'fix the database reference of the context, or pass --pg-url',
    })
  if (ref.startsWith('env:')) {
    const variable = ref.slice('env:'.length)
    const value = envValue(env, variable)
    if (value === undefined) throw onError(`database ${ref}: ${variable} is not set`)
    return value
  }
  if (ref.startsWith('file://')) return readFileRef(ref, 'database', onError)
  if (ref.startsWith('literal:')) return ref.slice('literal:'.length)
  throw onError(`database reference ${ref} must start with env:, file:// or literal:`)
}

/** What the global flags carry into resolution (env twins already applied by oclif). */
export interface ConnectionFlags {
  context?: string
  server?: string
  token?: string
  tenant?: string
  config?: string
  insecure?: boolean
}

/** Where and how to reach the broker. */
export interface Connection {
  /** Base URL without a trailing slash or `/api/v1`. */
  server: string
  token: string | undefined
  tenant: string | undefined
  tenancyHeader: string
  insecure: boolean
  /** The context in use, if any. */
  context: ContextEntry | undefined
  /** The contexts file that was read. */
  configPath: string
}

/** Normalises and checks a broker URL: http(s) only, no trailing slash, no `/api/v1` suffix. */
export function normaliseServer(server: string): string {
  let url: URL
  try {
    url = new URL(server)
  } catch {
    throw new UserError(`--server ${server} is not a URL`, { hint: 'use http://host:6632 or https://host' })
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UserError(`--server ${server} must be an http:// or https:// URL`, { hint: 'use http://host:6632' })
  }
  return url.href.replace(/\/+$/, '').replace(/\/api\/v1$/, '')
}

/** The contexts file and the context in use (`--context` > QUEEN_CONTEXT > current-context > none). */
export async function loadContext(
  flags: Pick<ConnectionFlags, 'config' | 'context'>,
  env: NodeJS.ProcessEnv,
): Promise<{ context: ContextEntry | undefined; configPath: string }> {
  const configPath = contextsPath(flags.config, env)
  const file = await loadContextsFile(configPath)
  return { context: selectContext(file, flags.context ?? envValue(env, 'QUEEN_CONTEXT'), configPath), configPath }
}

/**
 * Resolves the connection (docs/cli.md, "Resolution order"). Context: `--context` > QUEEN_CONTEXT > current-context.
 * Server: `--server` > QUEEN_SERVER > context > http://localhost:6632. Token: `--token` > QUEEN_TOKEN > the context's
 * token-ref (read only when needed, so a keychain reference does not block an explicit token); tenant likewise.
 * `--insecure` given explicitly overrides the context. The environment is applied here as well as by oclif's flag env
 * twins, so the order holds for any caller.
 */
export async function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv): Promise<Connection> {
  const { context, configPath } = await loadContext(flags, env)
  const server = normaliseServer(flags.server ?? envValue(env, 'QUEEN_SERVER') ?? context?.server ?? DEFAULT_SERVER)
  const explicitToken = flags.token ?? envValue(env, 'QUEEN_TOKEN')
  const token = explicitToken ?? (context ? await resolveTokenRef(context['token-ref'], context.name, env) : undefined)
  const tenant = flags.tenant ?? envValue(env, 'QUEEN_TENANT') ?? (context?.tenant || undefined)
  const tenancyHeader = context?.['tenancy-header'] || envValue(env, 'QUEEN_TENANCY_HEADER') || DEFAULT_TENANCY_HEADER
  return {
    server,
    token: token === '' ? undefined : token,
    tenant,
    tenancyHeader,
    insecure: flags.insecure ?? context?.insecure ?? false,
    context,
    configPath,
  }
}
