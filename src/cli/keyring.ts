/**
 * `keychain://<id>` token references (docs/cli.md, "Contexts and credentials"), read and written where the system has
 * a keyring: the Secret Service through `secret-tool` (libsecret) on Linux, the login keychain through `security` on
 * macOS. The entries are the Go queenctl's: service `queenctl`, account `<id>`, so a token one CLI stored the other
 * reads. Where neither tool exists the error names the reference and the ways around it.
 */
import { spawn } from 'node:child_process'

/** The keyring service both CLIs file tokens under. */
export const KEYRING_SERVICE = 'queenctl'

/** A keyring operation that could not be done; `missing` when the system has no keyring tool. */
export class KeyringError extends Error {
  readonly missing: boolean

  constructor(message: string, missing: boolean) {
    super(message)
    this.missing = missing
  }
}

interface ToolRun {
  code: number
  stdout: string
  stderr: string
}

function runTool(command: string, args: string[], input?: string): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new KeyringError(`no system keyring here (${command} is not installed)`, true)
          : new KeyringError(`${command}: ${error.message}`, false),
      ),
    )
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }))
    // A tool that fails at once (no D-Bus session, no keyring) exits before reading stdin; the write then fails
    // with EPIPE, and its exit code, read on 'close', is the answer that matters.
    child.stdin.on('error', () => undefined)
    child.stdin.end(input ?? '')
  })
}

/** The keyring tool of this platform, or a KeyringError naming why there is none. */
function tool(): 'secret-tool' | 'security' {
  if (process.platform === 'darwin') return 'security'
  if (process.platform === 'linux' || process.platform === 'freebsd') return 'secret-tool'
  throw new KeyringError(`no system keyring support on ${process.platform}`, true)
}

/** The token stored under `id`; throws a KeyringError when there is none or no keyring. */
export async function readKeyringToken(id: string): Promise<string> {
  const command = tool()
  const run =
    command === 'security'
      ? await runTool(command, ['find-generic-password', '-s', KEYRING_SERVICE, '-a', id, '-w'])
      : await runTool(command, ['lookup', 'service', KEYRING_SERVICE, 'username', id])
  const token = run.stdout.trim()
  if (run.code !== 0 || token === '') {
    throw new KeyringError(
      `no token stored under ${id} in the system keyring${run.stderr.trim() ? `: ${run.stderr.trim()}` : ''}`,
      false,
    )
  }
  return token
}

/** Stores `token` under `id`, replacing any earlier one. */
export async function storeKeyringToken(id: string, token: string): Promise<void> {
  const command = tool()
  const run =
    command === 'security'
      ? await runTool(command, ['add-generic-password', '-U', '-s', KEYRING_SERVICE, '-a', id, '-w', token])
      : await runTool(command, ['store', `--label=queenctl ${id}`, 'service', KEYRING_SERVICE, 'username', id], token)
  if (run.code !== 0) throw new KeyringError(`the system keyring refused the token: ${run.stderr.trim()}`, false)
}

/** Removes the token stored under `id`; nothing stored is not an error. */
export async function deleteKeyringToken(id: string): Promise<void> {
  const command = tool()
  if (command === 'security') await runTool(command, ['delete-generic-password', '-s', KEYRING_SERVICE, '-a', id])
  else await runTool(command, ['clear', 'service', KEYRING_SERVICE, 'username', id])
}
