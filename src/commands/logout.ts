import { Flags } from '@oclif/core'
import { contextsPath } from '../cli/contexts.js'
import { loadContextsDocument, setContext, writeContextsDocument } from '../cli/contexts-writer.js'
import { connectionFlags } from '../cli/flags.js'
import { DEFAULT_SERVER, normaliseServer } from '../cli/contexts.js'
import { gatewayLogout } from '../cli/gateway-session.js'
import { forgetTokenRef, loginContextName, requireContext, storedSessionToken } from '../cli/login.js'
import { OutputCommand } from '../cli/output-command.js'

export default class Logout extends OutputCommand {
  static override textOnPipe = true
  static override summary = "Forget a context's token"
  static override description =
    'Removes the token-ref of the context (--context, else the current one), and the token file login wrote or the system keyring entry of a keychain:// reference. When the token is a gateway session (login --method password), it is also ended at the gateway (best effort). Nothing else of the context changes. Prints logged out of context "<name>".'

  static override examples = ['<%= config.bin %> logout', '<%= config.bin %> logout --context prod']

  static override flags = {
    config: connectionFlags.config,
    context: Flags.string({ description: 'context to log out of (default: QUEEN_CONTEXT, then the current one)' }),
  }

  async run(): Promise<{ context: string }> {
    const { flags } = await this.parse(Logout)
    const out = this.output(flags)
    const configPath = contextsPath(flags.config, process.env)
    const name = await loginContextName(configPath, flags.context, process.env)
    const before = await requireContext(configPath, name)
    const session = await storedSessionToken(before['token-ref'], configPath, name)
    if (session !== undefined) {
      const server = (before as { server?: string }).server ?? DEFAULT_SERVER
      if (!(await gatewayLogout(normaliseServer(server), session))) {
        out.note(`could not end the session at ${server}; it expires by itself`)
      }
    }
    const doc = await loadContextsDocument(configPath)
    setContext(doc, name, { 'token-ref': '' })
    await writeContextsDocument(doc)
    await forgetTokenRef(before['token-ref'], configPath, name)
    if (out.tabular) out.write(`logged out of context "${name}"\n`)
    else out.detail({}, { context: name })
    return { context: name }
  }
}
