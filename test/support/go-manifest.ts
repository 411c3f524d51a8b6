/**
 * The flat Queue document of the Go queenctl's `apply --help` (docs/cli.md, "Compatibility with the Go queenctl"),
 * shared by the apply command test and the Go CLI compatibility tier.
 */
export function goQueueDocument(name: string): string[] {
  return [
    'kind: Queue',
    `name: ${name}`,
    'namespace: billing',
    'task: ingest',
    'config:',
    '  leaseTime: 60',
    '  retryLimit: 5',
    '  maxSize: 100000',
    '  deadLetterQueue: false',
  ]
}
