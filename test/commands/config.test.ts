/**
 * `queenctl config` (docs/cli.md, "The contexts file"): the contexts file is read and written in the Go CLI's format,
 * in this process with stdout, stderr and the exit code captured. Every test works on its own file in a temporary
 * directory; unknown keys, comments and key order must survive set, use and delete.
 */
import { mkdtemp, readFile, rm, stat, writeFile, readdir } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parse } from 'yaml'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import ConfigCurrentContext from '../../src/commands/config/current-context.js'
import ConfigDeleteContext from '../../src/commands/config/delete-context.js'
import ConfigGetContexts from '../../src/commands/config/get-contexts.js'
import ConfigSetContext from '../../src/commands/config/set-context.js'
import ConfigUseContext from '../../src/commands/config/use-context.js'
import ConfigView from '../../src/commands/config/view.js'
import { runCommand } from '../support/run-command.js'

/** A file as the Go CLI writes it, plus keys neither CLI defines (a future Go version's, a user's). */
const GO_FILE = `# written by the Go queenctl
current-context: prod
contexts:
  - name: prod
    server: https://queen.example.com
    token-ref: keychain://queenctl/prod
    insecure: false
    go-only-setting: keep-me
  - name: local
    server: http://localhost:6632
preferences:
  colors: true
`

let directory: string
let file: string

beforeEach(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'queenctl-config-'))
  file = path.join(directory, 'config.yaml')
})
afterEach(async () => {
  await rm(directory, { recursive: true, force: true })
})

const run = (command: Parameters<typeof runCommand>[0], id: string, ...argv: string[]) =>
  runCommand(command, `config:${id}`, ['--config', file, ...argv])
const setContext = (...argv: string[]) => run(ConfigSetContext, 'set-context', ...argv)
const useContext = (...argv: string[]) => run(ConfigUseContext, 'use-context', ...argv)
const deleteContext = (...argv: string[]) => run(ConfigDeleteContext, 'delete-context', ...argv)
const currentContext = (...argv: string[]) => run(ConfigCurrentContext, 'current-context', ...argv)

const mode = async (target: string) => (await stat(target)).mode & 0o777

describe('queenctl config on a file shared with the Go CLI', () => {
  it('keeps unknown keys, comments and order through set-context, use-context and delete-context', async () => {
    await writeFile(file, GO_FILE, { mode: 0o644 })

    const set = await setContext('acme', '--server', 'https://gateway.example.com/api/v1', '--tenant', 'acme')
    expect(set.stderr).toBe(`created context "acme" in ${file}\n`)
    expect(set.code).toBe(0)
    const modified = await setContext('prod', '--tenant', 'blue', '--insecure', '-o', 'json')
    expect(modified.code, modified.stderr).toBe(0)
    // The entry as it now is: the Go CLI's keychain reference and its unknown key untouched.
    expect(JSON.parse(modified.stdout)).toEqual({
      name: 'prod',
      server: 'https://queen.example.com',
      'token-ref': 'keychain://queenctl/prod',
      insecure: true,
      'go-only-setting': 'keep-me',
      tenant: 'blue',
    })
    expect((await useContext('acme')).code).toBe(0)
    expect((await deleteContext('local')).code).toBe(0)

    expect(await readFile(file, 'utf8')).toBe(`# written by the Go queenctl
current-context: acme
contexts:
  - name: prod
    server: https://queen.example.com
    token-ref: keychain://queenctl/prod
    insecure: true
    go-only-setting: keep-me
    tenant: blue
  - name: acme
    server: https://gateway.example.com
    tenant: acme
preferences:
  colors: true
`)
    // Rewritten with mode 0600 (it was 0644), and no temporary file left beside it.
    expect(await mode(file)).toBe(0o600)
    expect(await readdir(directory)).toEqual(['config.yaml'])
  })

  it('creates a missing file 0600 in a new 0700 directory', async () => {
    file = path.join(directory, 'nested', '.queen', 'config.yaml')
    const result = await setContext('local', '--server', 'http://localhost:6632', '--use', '-o', 'table')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe('name: local\nserver: http://localhost:6632\n')
    expect(parse(await readFile(file, 'utf8'))).toEqual({
      contexts: [{ name: 'local', server: 'http://localhost:6632' }],
      'current-context': 'local',
    })
    expect(await mode(file)).toBe(0o600)
    expect(await mode(path.dirname(file))).toBe(0o700)
    expect(await mode(path.join(directory, 'nested'))).toBe(0o700)
  })

  it('removes a field given an empty value and leaves unnamed fields alone', async () => {
    await writeFile(file, GO_FILE)
    expect((await setContext('prod', '--tenant', 'blue')).code).toBe(0)
    expect((await setContext('prod', '--tenant', '', '--token-ref', 'env')).code).toBe(0)
    const prod = parse(await readFile(file, 'utf8')).contexts[0]
    expect(prod).toEqual({
      name: 'prod',
      server: 'https://queen.example.com',
      'token-ref': 'env',
      insecure: false,
      'go-only-setting': 'keep-me',
    })
  })

  it('makes a new context current in a file without one, as the Go CLI does, and leaves a current one alone', async () => {
    const first = await setContext('local', '--server', 'http://localhost:6632', '-o', 'table')
    expect(first.stderr).toBe(`created context "local" in ${file}\nswitched to context "local"\n`)
    const second = await setContext('other', '--server', 'http://other:6632', '-o', 'table')
    expect(second.stderr).toBe(`created context "other" in ${file}\n`)
    expect(parse(await readFile(file, 'utf8'))['current-context']).toBe('local')
  })

  it('warns about a literal token and never prints it', async () => {
    const result = await setContext('dev', '--token-ref', 'literal:s3cret-token', '-o', 'table')
    expect(result.code).toBe(0)
    expect(result.stderr).toBe(
      `warning: the token of "dev" is stored in plain text in ${file}; prefer --token-ref env or file://\n` +
        `created context "dev" in ${file}\n` +
        `switched to context "dev"\n`,
    )
    expect(result.stdout).toBe('name: dev\ntoken-ref: literal:<redacted>\n')
    expect(parse(await readFile(file, 'utf8')).contexts[0]['token-ref']).toBe('literal:s3cret-token')
    const view = await run(ConfigView, 'view', '-o', 'yaml')
    expect(view.stdout).not.toContain('s3cret')
    const raw = await run(ConfigView, 'view', '--raw', '-o', 'json')
    expect(JSON.parse(raw.stdout).contexts[0]['token-ref']).toBe('literal:s3cret-token')
  })

  it('refuses a bad server, database reference or header name with exit 1 and writes nothing', async () => {
    for (const [argv, message] of [
      [['--server', 'ftp://queen'], 'queenctl: --server ftp://queen must be an http:// or https:// URL\n'],
      [
        ['--database', 'postgres://x'],
        'queenctl: --database postgres://x must start with env:, file:/// or literal:\n',
      ],
      [['--tenancy-header', 'X Tenant'], 'queenctl: --tenancy-header "X Tenant" is not an HTTP header name\n'],
    ] as const) {
      const result = await setContext('bad', ...argv)
      expect(result.code).toBe(1)
      expect(result.stderr.split('\n')[0] + '\n').toBe(message)
    }
    await expect(stat(file)).rejects.toThrow(/ENOENT/)
  })

  it('refuses to edit a malformed file, naming it', async () => {
    await writeFile(file, 'contexts: {not: a list}\n')
    const result = await setContext('x', '--server', 'http://a:1')
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`queenctl: ${file}: contexts must be a list\n`)
    expect(await readFile(file, 'utf8')).toBe('contexts: {not: a list}\n')
  })
})

describe('queenctl config use-context and delete-context', () => {
  it('exit 1 for an unknown context, listing the known ones, and leave the file alone', async () => {
    await writeFile(file, GO_FILE)
    for (const result of [await useContext('nope'), await deleteContext('nope')]) {
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `queenctl: context "nope" not found in ${file}\nhint: known contexts: prod, local\n`,
      })
    }
    expect(await readFile(file, 'utf8')).toBe(GO_FILE)
  })

  it('deleting the current context unsets current-context', async () => {
    await writeFile(file, GO_FILE)
    const result = await deleteContext('prod', '-o', 'table')
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: `deleted context "prod" from ${file}\n"prod" was the current context: no context is current now\n`,
    })
    expect(parse(await readFile(file, 'utf8'))['current-context']).toBeUndefined()
    expect(await currentContext()).toEqual({ code: 4, stdout: '', stderr: '' })
  })
})

describe('queenctl config current-context, get-contexts and view', () => {
  it('current-context prints the name, and exits 4 printing nothing when unset or without a file', async () => {
    await writeFile(file, GO_FILE)
    expect(await currentContext('-o', 'table')).toEqual({ code: 0, stdout: 'prod\n', stderr: '' })
    expect(JSON.parse((await currentContext('-o', 'json')).stdout)).toEqual({ currentContext: 'prod' })
    await rm(file)
    expect(await currentContext('-o', 'table')).toEqual({ code: 4, stdout: '', stderr: '' })
  })

  it('get-contexts marks the current context; wide adds insecure, tenancy header and database', async () => {
    await writeFile(file, GO_FILE)
    expect((await setContext('acme', '--tenant', 'acme', '--database', 'env:QUEEN_PG_URL')).code).toBe(0)
    const table = await run(ConfigGetContexts, 'get-contexts', '-o', 'table')
    expect(table).toEqual({
      code: 0,
      stderr: '',
      stdout:
        'CURRENT  NAME   SERVER                     TENANT  TOKEN-REF\n' +
        '*        prod   https://queen.example.com  -       keychain://queenctl/prod\n' +
        '-        local  http://localhost:6632      -       -\n' +
        '-        acme   -                          acme    -\n',
    })
    const wide = await run(ConfigGetContexts, 'get-contexts', '-o', 'wide')
    expect(wide.stdout.split('\n')[0]).toBe(
      'CURRENT  NAME   SERVER                     TENANT  TOKEN-REF                 INSECURE  TENANCY HEADER  DATABASE',
    )
    expect(wide.stdout.split('\n')[3]).toBe(
      '-        acme   -                          acme    -                         false     -               env:QUEEN_PG_URL',
    )
  })

  it('view prints the file with its unknown keys, and an empty configuration without a file', async () => {
    expect(JSON.parse((await run(ConfigView, 'view', '-o', 'json')).stdout)).toEqual({ contexts: [] })
    await writeFile(file, GO_FILE)
    const view = await run(ConfigView, 'view', '-o', 'json')
    expect(JSON.parse(view.stdout)).toEqual(parse(GO_FILE))
  })
})
