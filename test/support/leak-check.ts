/**
 * Fails any test that leaves a broker, pool or background job running (docs/conventions.md, "Tests"): resources a
 * test opened must be closed when it ends, and resources of beforeAll hooks when the file ends.
 */
import { afterAll, afterEach, expect } from 'vitest'
import { openResources } from './resources.js'

afterEach(() => {
  const test = expect.getState().currentTestName
  const leaked = openResources(test)
  expect(leaked, `resources left open by this test: ${leaked.join(', ')}`).toEqual([])
})

afterAll(() => {
  const leaked = openResources()
  expect(leaked, `resources left open by this file: ${leaked.join(', ')}`).toEqual([])
})
