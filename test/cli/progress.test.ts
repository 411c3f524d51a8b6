/** The progress line of `push` (src/cli/progress.ts): drawn in place on a terminal, nothing otherwise. */
import { describe, expect, it } from 'vitest'
import { ProgressLine } from '../../src/cli/progress.js'

describe('ProgressLine', () => {
  it('draws the count and the rate in place and erases itself at the end', () => {
    const written: string[] = []
    const progress = new ProgressLine({ enabled: true, noun: 'items', write: (text) => written.push(text) })
    progress.update(12_000)
    progress.clear()
    expect(written).toHaveLength(2)
    const erase = '\r\u001b[K'
    expect(written[0]!.startsWith(erase)).toBe(true)
    expect(written[0]!.slice(erase.length)).toMatch(/^12,000 items, [\d,]+ items\/s$/)
    expect(written[1]).toBe('\r\x1b[K')
  })

  it('writes nothing when off (stderr is not a terminal, or --quiet)', () => {
    const written: string[] = []
    const progress = new ProgressLine({ enabled: false, noun: 'items', write: (text) => written.push(text) })
    progress.update(1)
    progress.clear()
    expect(written).toEqual([])
  })

  it('erases nothing when it never drew', () => {
    const written: string[] = []
    new ProgressLine({ enabled: true, noun: 'items', write: (text) => written.push(text) }).clear()
    expect(written).toEqual([])
  })
})
