/**
 * `login --method token` and `logout` (docs/cli.md, "Contexts and credentials"): the token is written to a file of
 * its own beside the contexts file (mode 0600), and the context's token-ref points at it (`file:///...`), so the
 * contexts file never holds the secret. `logout` removes the reference and the file login wrote (or the keyring entry
 * of a `keychain://` reference).
 */
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { loadContextsFile } from './contexts.js'
import { EXIT, UserError } from './errors.js'
import { deleteKeyringToken } from './keyring.js'

/** The context login and logout work on: `--context`, QUEEN_CONTEXT, then current-context. */
export async function loginContextName(
  configPath: string,
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const chosen = flag ?? (env.QUEEN_CONTEXT || undefined)
  if (chosen !== undefined) return chosen
  const file = await loadContextsFile(configPath)
  if (file['current-context']) return file['current-context']
  throw new UserError(`${configPath} has no current context to log in to`, {
    hint: 'create one first: queenctl config set-context NAME --server URL --use, or pass --context NAME',
  })
}

/** Refuses a context the contexts file does not have (login and logout never create one). */
export async function requireContext(configPath: string, name: string): Promise<{ 'token-ref'?: string }> {
  const found = (await loadContextsFile(configPath)).contexts.find((context) => context.name === name)
  if (found) return found
  throw new UserError(`no context "${name}" in ${configPath}`, {
    hint: `create it first: queenctl config set-context ${name} --server URL`,
  })
}

/** Where login keeps the token of a context: `<contexts dir>/tokens/<context>.token`. */
export function tokenFile(configPath: string, context: string): string {
  return path.join(path.dirname(configPath), 'tokens', `${encodeURIComponent(context)}.token`)
}

/** Writes the token (0600, atomically) and returns its `file:///` reference. */
export async function storeTokenFile(configPath: string, context: string, token: string): Promise<string> {
  const target = tokenFile(configPath, context)
  await mkdir(path.dirname(target), { recursive: true, mode: 0o700 })
  const temporary = `${target}.${process.pid}.tmp`
  await writeFile(temporary, `${token}\n`, { mode: 0o600 })
  await chmod(temporary, 0o600)
  await rename(temporary, target)
  return pathToFileURL(target).href
}

/** The token of `login --method token`: one line read from stdin (pasted on a terminal, or piped). */
export async function readPastedToken(
  stdin: NodeJS.ReadableStream & { isTTY?: boolean },
  prompt: (text: string) => void,
): Promise<string> {
  if (stdin.isTTY === true) prompt('Paste the token (a JWT or a qk_ API key), then Enter: ')
  let text = ''
  for await (const chunk of stdin) {
    text += Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk)
    if (stdin.isTTY === true && text.includes('\n')) break
  }
  const token = text.split(/\r?\n/)[0]!.trim()
  if (token === '') {
    throw new UserError('login --method token: no token on stdin', {
      hint: 'paste it when asked, or pipe it: printf %s "$TOKEN" | queenctl login --method token',
    })
  }
  return token
}

/** Cleans up what a token-ref points at, where login (or set-context --token) put it there. */
export async function forgetTokenRef(ref: string | undefined, configPath: string, context: string): Promise<void> {
  if (ref === undefined) return
  if (ref === `keychain://${context}`) {
    await deleteKeyringToken(context).catch(() => undefined)
    return
  }
  if (ref.startsWith('file://')) {
    const file = fileURLToPath(ref)
    if (file === tokenFile(configPath, context)) await rm(file, { force: true })
  }
}

/** `--method google|github`: the Go CLI's hosted sign-in flows, which this queenctl does not have. */
export function gatewayMethod(method: string): UserError {
  return new UserError(`login --method ${method} is not supported by this queenctl`, {
    exitCode: EXIT.user,
    hint: 'sign in with --method password against a queenctl proxy gateway, or store a token with --method token',
  })
}

/** The token a file:// reference written by login holds, if it is a gateway session (`qs_`); for logout. */
export async function storedSessionToken(ref: string | undefined, configPath: string, context: string) {
  if (ref === undefined || !ref.startsWith('file://')) return undefined
  const file = fileURLToPath(ref)
  if (file !== tokenFile(configPath, context)) return undefined
  const token = (await readFile(file, 'utf8').catch(() => '')).trim()
  return token.startsWith('qs_') ? token : undefined
}
