import { Flags } from '@oclif/core'
import { createInterface } from 'node:readline/promises'
import { contextsPath, loadContextsFile, normaliseServer, DEFAULT_SERVER } from '../cli/contexts.js'
import { loadContextsDocument, setContext, writeContextsDocument } from '../cli/contexts-writer.js'
import { UserError } from '../cli/errors.js'
import { connectionFlags } from '../cli/flags.js'
import { gatewayPasswordLogin } from '../cli/gateway-session.js'
import { gatewayMethod, loginContextName, readPastedToken, requireContext, storeTokenFile } from '../cli/login.js'
import { OutputCommand } from '../cli/output-command.js'
import { readPassword } from '../cli/password-input.js'

export default class Login extends OutputCommand {
  static override textOnPipe = true
  static override summary = 'Store a token for a context (a pasted JWT or qk_ key, or a gateway session)'
  static override description =
    "Stores a token for the context (--context, else the current one) in a file of its own beside the contexts file (tokens/<context>.token, mode 0600), with the context's token-ref pointing at it, so the contexts file never holds the secret. --method token reads one token from stdin (pasted when asked on a terminal, or piped); it is not checked against a broker. --method password signs in at a queenctl proxy gateway (--server, else the context's server) as the user -u, with the password read from stdin or asked for without echo, and stores the session token (qs_...) it answers; logout ends that session. Without --method, -u means password, otherwise token; --token T stores T without reading stdin. --method google and github exit 1; --no-browser (of the Go CLI's browser sign-in) changes nothing. Prints logged in to context \"<name>\"."

  static override examples = [
    '<%= config.bin %> login --method token',
    'printf %s "$QUEEN_API_KEY" | <%= config.bin %> login --method token --context prod',
    'printf %s "$PASSWORD" | <%= config.bin %> login --method password -u alice --server http://gateway:6634',
  ]

  static override flags = {
    config: connectionFlags.config,
    context: Flags.string({
      description: 'context to store the token for (default: QUEEN_CONTEXT, then the current one)',
    }),
    method: Flags.string({
      description:
        'how to log in: token (paste a token) or password (a user of a queenctl proxy gateway); default password with -u, else token',
      options: ['token', 'password', 'google', 'github'],
    }),
    username: Flags.string({ char: 'u', aliases: ['user'], description: 'user for --method password (alias --user)' }),
    token: Flags.string({
      description: 'the token for --method token, instead of reading it from stdin (it shows in the process list)',
    }),
    server: Flags.string({
      description: "gateway URL for --method password (default: the context's server); stored in the context",
    }),
    'no-browser': Flags.boolean({
      description:
        "the Go queenctl's flag for its browser sign-in (google, github); accepted and without effect: no method here opens a browser",
      default: false,
    }),
  }

  async run(): Promise<{ context: string; tokenRef: string }> {
    const { flags } = await this.parse(Login)
    const out = this.output(flags)
    // As the Go queenctl: -u alone means the password method.
    const method = flags.method ?? (flags.username !== undefined && flags.token === undefined ? 'password' : 'token')
    if (method !== 'token' && method !== 'password') throw gatewayMethod(method)
    if (method === 'token' && (flags.server !== undefined || flags.username !== undefined)) {
      throw new UserError(
        `login --method token: ${flags.server === undefined ? '-u' : '--server'} is for --method password`,
      )
    }
    if (method === 'password' && flags.token !== undefined) {
      throw new UserError('login --method password: --token is for --method token')
    }
    const configPath = contextsPath(flags.config, process.env)
    const name = await loginContextName(configPath, flags.context, process.env)
    await requireContext(configPath, name)
    const changes: { 'token-ref'?: string; server?: string } = {}
    let token: string
    let who = ''
    if (method === 'password') {
      const context = (await loadContextsFile(configPath)).contexts.find((entry) => entry.name === name)
      const server = normaliseServer(flags.server ?? context?.server ?? DEFAULT_SERVER)
      const username = flags.username ?? (await askUsername())
      const password = await readPassword(
        process.stdin,
        (text) => process.stderr.write(text),
        'login --method password',
      )
      const session = await gatewayPasswordLogin(server, username, password)
      token = session.token
      who = ` as ${session.user.name} (tenant ${session.user.tenant}, ${session.user.role})`
      if (flags.server !== undefined) changes.server = server
    } else {
      token = flags.token?.trim() || (await readPastedToken(process.stdin, (text) => process.stderr.write(text)))
    }
    const doc = await loadContextsDocument(configPath)
    const tokenRef = await storeTokenFile(configPath, name, token)
    changes['token-ref'] = tokenRef
    setContext(doc, name, changes)
    await writeContextsDocument(doc)
    if (out.tabular) out.write(`logged in to context "${name}"${who}\n`)
    else out.detail({}, { context: name, tokenRef })
    return { context: name, tokenRef }
  }
}

/** `-u` was not given: ask on a terminal, refuse otherwise (stdin carries the password). */
async function askUsername(): Promise<string> {
  if (process.stdin.isTTY !== true) {
    throw new UserError('login --method password: -u USER is required when stdin is not a terminal')
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr })
  try {
    const name = (await prompt.question('User name: ')).trim()
    if (name === '') throw new UserError('login --method password: no user name given')
    return name
  } finally {
    prompt.close()
  }
}
