import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { shebangLaunch } from '../../bench/broker-process.js'

describe("bin/run.js's shebang as the benchmark reads it (for --profile)", () => {
  it('separates the environment it sets from the node flags', () => {
    expect(shebangLaunch('#!/usr/bin/env -S A_B=1 C=x node --max-semi-space-size=8 --heap-growing-percent=50')).toEqual(
      {
        env: { A_B: '1', C: 'x' },
        nodeFlags: ['--max-semi-space-size=8', '--heap-growing-percent=50'],
      },
    )
    expect(shebangLaunch('#!/usr/bin/env -S node --flag')).toEqual({ env: {}, nodeFlags: ['--flag'] })
    expect(shebangLaunch('#!/usr/bin/env node')).toEqual({ env: {}, nodeFlags: [] })
  })

  it("reads bin/run.js's own line: node runs it", () => {
    const first = readFileSync(new URL('../../bin/run.js', import.meta.url), 'utf8').split('\n', 1)[0] ?? ''
    expect(shebangLaunch(first).nodeFlags.length).toBeGreaterThan(0)
  })
})
