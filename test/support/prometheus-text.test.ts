import { describe, expect, it } from 'vitest'
import { parsePrometheusText } from './prometheus-text.js'

// The parser behind the /metrics/prometheus tests must itself reject what Prometheus would reject.
describe('parsePrometheusText', () => {
  const valid = [
    '# HELP jobs_total Jobs run, with "quotes" and a \\\\ backslash.',
    '# TYPE jobs_total counter',
    'jobs_total{job="a",outcome="ran"} 3',
    'jobs_total{job="b\\"q\\\\x\\n",outcome="ran",} 1.5e1 1700000000000',
    '# TYPE latency_seconds histogram',
    'latency_seconds_bucket{le="0.1"} 1',
    'latency_seconds_bucket{le="+Inf"} 2',
    'latency_seconds_sum 0.3',
    'latency_seconds_count 2',
    '# TYPE lag_seconds gauge',
    'lag_seconds NaN',
    '',
  ].join('\n')

  it('reads families, labels with escapes, values and timestamps', () => {
    const exposition = parsePrometheusText(valid)
    expect(exposition.families.get('jobs_total')?.help).toBe('Jobs run, with "quotes" and a \\ backslash.')
    expect(exposition.value('jobs_total', { job: 'a' })).toBe(3)
    expect(exposition.value('jobs_total', { job: 'b"q\\x\n' })).toBe(15)
    expect(exposition.value('latency_seconds_count')).toBe(2)
    expect(exposition.value('lag_seconds')).toBeNaN()
    expect(() => exposition.value('jobs_total')).toThrow('2 matching samples')
  })

  it.each([
    ['a sample before its TYPE', 'x 1\n# TYPE x gauge\n', 'before its TYPE'],
    ['a bad metric name', '# TYPE 1x gauge\n', 'bad metric name'],
    ['a bad label name', '# TYPE x gauge\nx{1a="v"} 1\n', 'bad label name'],
    ['an unquoted label value', '# TYPE x gauge\nx{a=v} 1\n', 'not quoted'],
    ['a bad escape', '# TYPE x gauge\nx{a="\\t"} 1\n', 'bad escape'],
    ['a repeated label', '# TYPE x gauge\nx{a="1",a="2"} 1\n', 'repeated'],
    ['a bad value', '# TYPE x gauge\nx 1,5\n', 'bad value'],
    ['a duplicate series', '# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\n', 'duplicate series'],
    ['a split family', '# TYPE x gauge\n# TYPE y gauge\nx 1\ny 1\nx{a="1"} 1\n', 'not contiguous'],
    ['a second TYPE', '# TYPE x gauge\n# TYPE x counter\n', 'second TYPE'],
    ['an unknown type', '# TYPE x meter\n', 'bad type'],
    [
      'buckets that are not cumulative',
      '# TYPE h histogram\nh_bucket{le="1"} 3\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 2\n',
      'not cumulative',
    ],
    ['a count that differs from +Inf', '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n', '_count'],
  ])('rejects %s', (_name, text, message) => {
    expect(() => parsePrometheusText(text)).toThrow(message)
  })
})
