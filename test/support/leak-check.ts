/**
 * Fails any test that leaves a broker, pool or background service running (style.md 3.11). Resources
 * register themselves through trackResource() in test/support and are removed when closed.
 */
import { afterEach, expect } from 'vitest'
import { openResources } from './resources.js'

afterEach(() => {
  const leaked = [...openResources()]
  expect(leaked, `resources left open by this test: ${leaked.join(', ')}`).toEqual([])
})
