/** Small wire-level helpers for data-plane tests: push, pop and ack over real HTTP. */
import { expect } from 'vitest'
import { http } from './broker.js'

type Target = { url: string }

/** Pushes items and expects HTTP 200; returns the per-item results. */
export async function push(broker: Target, items: object[]): Promise<any[]> {
  const response = await http(broker, 'POST', '/api/v1/push', { items })
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body
}

/** Pushes `count` messages `{ n }` to one partition, in one request. */
export async function pushMany(
  broker: Target,
  queue: string,
  partition: string,
  count: number,
  start = 0,
): Promise<any[]> {
  const items = Array.from({ length: count }, (_, index) => ({ queue, partition, payload: { n: start + index } }))
  return push(broker, items)
}

/** Pops with query parameters; returns the body (HTTP 200 expected). */
export async function pop(
  broker: Target,
  queue: string,
  params: Record<string, string | number | boolean> = {},
  partition?: string,
): Promise<any> {
  const query = new URLSearchParams(
    Object.entries(params).map(([key, value]): [string, string] => [key, String(value)]),
  ).toString()
  const path =
    partition === undefined ? `/api/v1/pop/queue/${queue}` : `/api/v1/pop/queue/${queue}/partition/${partition}`
  const response = await http(broker, 'GET', `${path}${query ? `?${query}` : ''}`)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body
}

/** Acks one popped message (status completed unless given); returns the single result item. */
export async function ack(broker: Target, message: any, extra: Record<string, unknown> = {}): Promise<any> {
  const response = await http(broker, 'POST', '/api/v1/ack', {
    transactionId: message.transactionId,
    partitionId: message.partitionId,
    leaseId: message.leaseId || undefined,
    consumerGroup: message.consumerGroup === '__QUEUE_MODE__' ? null : message.consumerGroup,
    ...extra,
  })
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body[0]
}

/** Acks many popped messages in one batch call; returns the result items. */
export async function ackBatch(broker: Target, messages: any[], status = 'completed'): Promise<any[]> {
  const response = await http(broker, 'POST', '/api/v1/ack/batch', {
    acknowledgments: messages.map((message) => ({
      transactionId: message.transactionId,
      partitionId: message.partitionId,
      leaseId: message.leaseId || undefined,
      consumerGroup: message.consumerGroup === '__QUEUE_MODE__' ? null : message.consumerGroup,
      status,
    })),
  })
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body
}

/** Configures a queue (full replace). */
export async function configure(broker: Target, queue: string, options: Record<string, unknown> = {}): Promise<any> {
  const response = await http(broker, 'POST', '/api/v1/configure', { queue, options })
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body
}

/** Payload `n` values of popped messages. */
export function numbers(body: { messages: { data: { n: number } }[] }): number[] {
  return body.messages.map((message) => message.data.n)
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
