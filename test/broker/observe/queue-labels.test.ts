import { describe, expect, it } from 'vitest'
import { OTHER_QUEUE_LABEL, QueueLabels } from '../../../src/broker/observe/queue-labels.js'

describe('QueueLabels', () => {
  it('gives the first queues their own label and folds the rest into _other', () => {
    const labels = new QueueLabels(2)
    expect(labels.label('', 'a')).toBe('a')
    expect(labels.label('', 'b')).toBe('b')
    expect(labels.label('', 'c')).toBe(OTHER_QUEUE_LABEL)
    // A queue keeps the label it got first.
    expect(labels.label('', 'a')).toBe('a')
    expect(labels.label('', 'c')).toBe(OTHER_QUEUE_LABEL)
  })

  it('counts the same name in two tenants as two queues', () => {
    const labels = new QueueLabels(1)
    expect(labels.label('t1', 'q')).toBe('q')
    expect(labels.label('t2', 'q')).toBe(OTHER_QUEUE_LABEL)
  })

  it('folds everything with a cap of 0 and refuses a bad cap', () => {
    expect(new QueueLabels(0).label('', 'a')).toBe(OTHER_QUEUE_LABEL)
    expect(() => new QueueLabels(-1)).toThrow('maxQueues')
  })
})
