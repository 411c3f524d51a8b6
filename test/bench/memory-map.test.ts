/**
 * bench/memory-map.ts on a real process (this one): the kinds add up to the RSS the kernel reports, and the
 * node executable's pages and V8's heap are where Node puts them.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { MEMORY_KINDS, memoryMap } from '../../bench/memory-map.js'

describe('memoryMap', () => {
  it("splits this process's RSS into kinds that add up to it", () => {
    // Live objects enough to show in V8's heap whatever the test runner holds.
    const held = Array.from({ length: 200_000 }, (_, index) => ({ index }))
    const map = memoryMap(process.pid)
    const vmRssMb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024
    expect(map).toBeDefined()
    if (!map) return
    const sum = MEMORY_KINDS.reduce((total, [kind]) => total + map[kind], 0)
    expect(sum).toBeCloseTo(map.total, 6)
    expect(Math.abs(map.total - vmRssMb) / vmRssMb).toBeLessThan(0.1)
    // The node executable's code is tens of MB once V8 has compiled anything; a bare Node process uses 30.
    expect(map.nodeBinary).toBeGreaterThan(10)
    expect(map.v8Heap).toBeGreaterThan((held.length * 16) / 1024 / 1024)
    expect(held).toHaveLength(200_000)
  })

  it('answers undefined for a process that is gone', () => {
    expect(memoryMap(2 ** 22 + 12345)).toBeUndefined()
  })
})
