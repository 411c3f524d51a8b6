/**
 * `keychain://` token references against a real Secret Service (docs/cli.md, "Compatibility with the Go queenctl"):
 * each command line runs through /bin/sh inside its own D-Bus session (`dbus-run-session`) with gnome-keyring's
 * secrets component unlocked by a password on stdin, the keyring kept on disk in the scratch HOME between lines.
 * `config set-context --token T` files T in the keyring under the Go queenctl's entry (service `queenctl`, account
 * the context name), never in the contexts file; a request with that context sends T to a broker with JWT on; an
 * entry written by `secret-tool` itself (as the Go CLI writes it) is what the next request sends; `logout` removes
 * it. Skipped only where the tools are not installed (.ci/run installs them: dbus, gnome-keyring, libsecret-tools).
 */
import { spawnSync } from 'node:child_process'
import { mkdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { goShell, type GoShell, type ShellRun } from '../support/go-shell.js'
import { hsToken, SECRET } from '../broker/auth/tokens.js'

const TOOLS = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool']
const installed = TOOLS.every((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0)

/** The keyring's password: gnome-keyring creates the login keyring with it on the first unlock. */
const KEYRING_PASSWORD = 'keyring-test-password'

describe.skipIf(!installed)('keychain:// token references in a real Secret Service (gnome-keyring)', () => {
  let broker: TestBroker
  let shell: GoShell
  let token: string

  /**
   * Runs `line` through /bin/sh in a D-Bus session of its own, with gnome-keyring's secrets component started and
   * unlocked; dbus-daemon's own notices (no fd limit in a container) are dropped from stderr.
   */
  async function inKeyring(line: string): Promise<ShellRun> {
    const run = await shell.sh(
      `printf %s "$KEYRING_PASSWORD" | dbus-run-session -- sh -c 'gnome-keyring-daemon --unlock --components=secrets >/dev/null && eval "$KEYRING_LINE"'`,
      { KEYRING_LINE: line, KEYRING_PASSWORD, XDG_RUNTIME_DIR: path.join(shell.home, 'run') },
    )
    const stderr = run.stderr
      .split('\n')
      .filter((text) => !/^dbus(-daemon)?\[\d+\]/.test(text))
      .join('\n')
    return { ...run, stderr }
  }

  beforeAll(async () => {
    broker = await startTestBroker({
      label: 'compat_cli_keyring',
      config: { auth: { enabled: true, secret: SECRET, skipPaths: [] } },
    })
    shell = await goShell('queenctl-compat-keyring-')
    await mkdir(path.join(shell.home, 'run'), { mode: 0o700 })
    token = await hsToken({ sub: 'keyring-user', role: 'read-write' })
  })
  afterAll(async () => {
    await broker?.close()
  })

  it('config set-context --token T files T in the keyring, not in the contexts file', async () => {
    const set = await inKeyring(`queenctl config set-context kr --server ${broker.url} --token '${token}'`)
    expect(set.code, set.stderr).toBe(0)
    const file = await readFile(path.join(shell.home, '.queen', 'config.yaml'), 'utf8')
    expect(file).toContain('token-ref: keychain://kr')
    expect(file).not.toContain(token)
    // The Go queenctl's entry: service queenctl, account the context's name.
    const stored = await inKeyring('secret-tool lookup service queenctl username kr')
    expect(stored).toEqual({ code: 0, stdout: token, stderr: '' })
  })

  it('a request with the context sends T: the broker with JWT on answers it; without a token it is exit 3', async () => {
    const list = await inKeyring('queenctl --context kr queue list -o json')
    expect(list.code, list.stderr).toBe(0)
    expect(JSON.parse(list.stdout)).toEqual([])
    const push = await inKeyring(`echo '{"k":1}' | queenctl push kr-queue --context kr`)
    expect(push).toEqual({ code: 0, stdout: 'queued=1 duplicate=0 failed=0\n', stderr: '' })
    // No contexts file, so no token: the broker refuses.
    const anonymous = await inKeyring(`queenctl --config "$HOME/none.yaml" --server ${broker.url} queue list`)
    expect(anonymous.code).toBe(3)
  })

  it('an entry written by secret-tool (as the Go CLI writes it) is read at each request; logout removes it', async () => {
    const replaced = await inKeyring(
      "printf %s not-a-jwt | secret-tool store --label='queenctl kr' service queenctl username kr",
    )
    expect(replaced.code, replaced.stderr).toBe(0)
    const refused = await inKeyring('queenctl --context kr queue list')
    expect(refused.code).toBe(3)
    const restored = await inKeyring(
      `printf %s '${token}' | secret-tool store --label='queenctl kr' service queenctl username kr`,
    )
    expect(restored.code, restored.stderr).toBe(0)
    expect((await inKeyring('queenctl --context kr queue list -o json')).code).toBe(0)

    const logout = await inKeyring('queenctl logout --context kr')
    expect(logout).toEqual({ code: 0, stdout: 'logged out of context "kr"\n', stderr: '' })
    const gone = await inKeyring('secret-tool lookup service queenctl username kr')
    expect(gone.code).toBe(1)
    expect(gone.stdout).toBe('')
    expect(await readFile(path.join(shell.home, '.queen', 'config.yaml'), 'utf8')).not.toContain('keychain://kr')
  })
})
