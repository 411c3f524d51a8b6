import { Args, Flags } from '@oclif/core'
import { isLiteralTokenRef, redactContext } from '../../cli/context-display.js'
import { contextsPath, normaliseServer, type ContextEntry } from '../../cli/contexts.js'
import {
  loadContextsDocument,
  setContext,
  useContext,
  writeContextsDocument,
  type ContextChanges,
} from '../../cli/contexts-writer.js'
import { EXIT, UserError } from '../../cli/errors.js'
import { storeKeyringToken } from '../../cli/keyring.js'
import { connectionFlags } from '../../cli/flags.js'
import { OutputCommand } from '../../cli/output-command.js'

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

export default class ConfigSetContext extends OutputCommand {
  static override summary = 'Create a context or change some of its fields'
  static override description =
    'Creates the context, or changes only the given fields of an existing one; its other keys (also ones this CLI does not know) are kept. An empty value removes a field (--tenant ""). The file is written atomically with mode 0600. --token stores a token in the system keyring (token-ref keychain://NAME, as the Go queenctl does; exit 3 where there is no keyring), or with --no-keychain in the file as literal:. A literal token is stored in plain text: prefer --token-ref env, env:VAR or file:///path.'

  static override examples = [
    '<%= config.bin %> config set-context prod --server https://queen.example.com --token-ref env --use',
    '<%= config.bin %> config set-context acme --server https://gateway.example.com --token-ref file:///home/me/.queen/acme.token --tenant acme',
    '<%= config.bin %> config set-context local --server http://localhost:6632 --database env:QUEEN_PG_URL',
    '<%= config.bin %> config set-context staging --insecure',
    '<%= config.bin %> config set-context ci --server https://queen.example.com --token "$QUEEN_TOKEN" --no-keychain',
  ]

  static override args = { name: Args.string({ description: 'context name', required: true }) }

  static override flags = {
    config: connectionFlags.config,
    server: Flags.string({ description: 'broker base URL, without /api/v1' }),
    'token-ref': Flags.string({
      description: 'where the token comes from: env, env:VAR, file:///absolute/path, literal:TOKEN, keychain://ID',
      exclusive: ['token'],
    }),
    token: Flags.string({
      description:
        'a token to store: in the system keyring (token-ref keychain://NAME), or with --no-keychain in the file as literal:',
    }),
    keychain: Flags.boolean({
      description: '--no-keychain stores --token in the file as a literal: reference instead of the system keyring',
      allowNo: true,
      default: true,
    }),
    insecure: Flags.boolean({
      description: 'skip TLS certificate verification for this context (--no-insecure turns it off)',
      allowNo: true,
    }),
    tenant: Flags.string({ description: 'tenant sent in the tenancy header' }),
    'tenancy-header': Flags.string({ description: 'name of the tenancy header (default X-Queen-Tenant)' }),
    database: Flags.string({
      description: 'PostgreSQL DSN reference for --direct commands: env:VAR, file:///path or literal:DSN',
    }),
    use: Flags.boolean({
      description: 'also make it the current context (a file without one gets it anyway)',
      default: false,
    }),
  }

  async run(): Promise<ContextEntry> {
    const { args, flags } = await this.parse(ConfigSetContext)
    const out = this.output(flags)
    if (args.name.trim() === '') throw new UserError('the context name must not be empty')
    const tokenRef =
      flags.token === undefined ? flags['token-ref'] : await storedTokenRef(args.name, flags.token, flags.keychain)
    const changes: ContextChanges = {
      server: flags.server === undefined || flags.server === '' ? flags.server : normaliseServer(flags.server),
      'token-ref': tokenRef,
      tenant: flags.tenant,
      'tenancy-header': checkHeader(flags['tenancy-header']),
      database: checkDatabase(flags.database),
      insecure: flags.insecure,
    }
    const doc = await loadContextsDocument(contextsPath(flags.config, process.env))
    const { context, created } = setContext(doc, args.name, changes)
    // A file without a current context gets this one, as the Go queenctl does (its Quick start relies on it).
    const use = flags.use || !doc.document.get('current-context')
    if (use) useContext(doc, args.name)
    await writeContextsDocument(doc)
    if (isLiteralTokenRef(tokenRef)) {
      out.warn(`the token of "${args.name}" is stored in plain text in ${doc.file}; prefer --token-ref env or file://`)
    }
    out.confirm(`${created ? 'created' : 'modified'} context "${args.name}" in ${doc.file}`)
    if (use) out.confirm(`switched to context "${args.name}"`)
    const shown = redactContext(context)
    out.detail(shown, shown)
    return shown
  }
}

/** Where `--token` goes: the system keyring (`keychain://NAME`, as the Go queenctl does), or `literal:` with --no-keychain. */
async function storedTokenRef(name: string, token: string, keychain: boolean): Promise<string> {
  if (!keychain) return `literal:${token}`
  try {
    await storeKeyringToken(name, token)
  } catch (error) {
    throw new UserError(`--token: cannot store it as keychain://${name}: ${(error as Error).message}`, {
      exitCode: EXIT.auth,
      code: 'auth_error',
      hint: 'pass --no-keychain to keep it in the file as literal:, or --token-ref env / file:///path',
    })
  }
  return `keychain://${name}`
}

function checkHeader(header: string | undefined): string | undefined {
  if (header === undefined || header === '' || HEADER_NAME.test(header)) return header
  throw new UserError(`--tenancy-header ${JSON.stringify(header)} is not an HTTP header name`, {
    hint: 'use letters, digits and dashes, e.g. X-Queen-Tenant',
  })
}

function checkDatabase(ref: string | undefined): string | undefined {
  if (ref === undefined || ref === '' || /^(env:.+|file:\/\/\/.+|literal:.+)$/.test(ref)) return ref
  throw new UserError(`--database ${ref} must start with env:, file:/// or literal:`, {
    hint: 'e.g. --database env:QUEEN_PG_URL',
  })
}
