/**
 * Global flags in any position (src/cli/global-argv.ts): the argv bin/run.js hands oclif, checked against the real
 * oclif.manifest.json.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { rewriteGlobalFlags } from '../../src/cli/global-argv.js'

const manifest = JSON.parse(readFileSync(new URL('../../oclif.manifest.json', import.meta.url), 'utf8')) as {
  commands: Parameters<typeof rewriteGlobalFlags>[1]
}
const rewrite = (...argv: string[]) => rewriteGlobalFlags(argv, manifest.commands)

describe('rewriteGlobalFlags', () => {
  it('moves global flags typed before the subcommand behind the command id', () => {
    expect(rewrite('--server', 'http://q:6632', 'ping')).toEqual(['ping', '--server', 'http://q:6632'])
    expect(rewrite('-o', 'json', '--context', 'prod', 'queue', 'list')).toEqual([
      'queue',
      'list',
      '-o',
      'json',
      '--context',
      'prod',
    ])
    expect(rewrite('--server=http://q', '-ojson', 'push', 'orders', '--batch', '5')).toEqual([
      'push',
      '--server=http://q',
      '-ojson',
      'orders',
      '--batch',
      '5',
    ])
  })

  it('finds the command through its aliases', () => {
    expect(rewrite('--server', 'u', 'q', 'ls')).toEqual(['q', 'ls', '--server', 'u'])
  })

  it('leaves flags after the subcommand alone and drops a global flag the command does not take', () => {
    expect(rewrite('ping', '--server', 'u')).toEqual(['ping', '--server', 'u'])
    expect(rewrite('--server', 'u', 'config', 'view')).toEqual(['config', 'view'])
    expect(rewrite('config', 'view', '--token', 't')).toEqual(['config', 'view'])
  })

  it('keeps --help, --version, a lone flag and what follows -- as typed', () => {
    expect(rewrite('--version')).toEqual(['--version'])
    expect(rewrite('--server', 'u', '--help')).toEqual(['--server', 'u', '--help'])
    expect(rewrite('push', 'q', '--', '--server')).toEqual(['push', 'q', '--', '--server'])
  })

  it('puts the words of an unknown command first, and turns global flags alone into the root help', () => {
    expect(rewrite('-o', 'json', 'nosuch', 'verb')).toEqual(['nosuch', 'verb', '-o', 'json'])
    expect(rewrite('--server', 'u')).toEqual([])
    expect(rewrite('--verbose', 'ping')).toEqual(['--verbose', 'ping'])
  })
})

describe('booleans written --flag=true|false', () => {
  it('turns --wait=false into --no-wait and --auto-ack=true into --auto-ack', () => {
    expect(rewrite('pop', 'q', '--wait=false')).toEqual(['pop', 'q', '--no-wait'])
    expect(rewrite('pop', 'q', '--auto-ack=true')).toEqual(['pop', 'q', '--auto-ack'])
    expect(rewrite('--server', 'u', 'pop', 'q', '--auto-ack=false')).toEqual(['pop', '--server', 'u', 'q'])
  })

  it("writes an alias's --alias=false with the flag's own name (queue configure --dlq=false)", () => {
    expect(rewrite('queue', 'configure', 'orders', '--dlq=false')).toEqual([
      'queue',
      'configure',
      'orders',
      '--no-dead-letter-queue',
    ])
    expect(rewrite('queue', 'configure', 'orders', '--dlq=true')).toEqual([
      'queue',
      'configure',
      'orders',
      '--dead-letter-queue',
    ])
    expect(rewrite('tail', 'q', '--auto-ack=true')).toEqual(['tail', 'q', '--ack'])
  })
})
