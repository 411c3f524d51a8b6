/**
 * Group commit for concurrent requests (docs/design.md, "Group commit"): requests that arrive while earlier batches are
 * in flight are folded into the next batch, so many concurrent pushes or acks cost few database round trips. A lone
 * request is not delayed: with a free slot it is flushed on the next turn of the event loop.
 */

/** Runs one batch; must return one result per input, in order. */
export type BatchRunner<In, Out> = (inputs: In[]) => Promise<Out[]>

/** Tuning of a {@link MicroBatcher}. */
export interface MicroBatcherOptions<In> {
  /** Batches allowed in flight at once (each holds one pool connection). */
  maxInFlight: number
  /** Upper bound on the summed weight of one batch. */
  maxWeight: number
  /** Weight of one input (e.g. its number of items). */
  weight: (input: In) => number
}

interface Pending<In, Out> {
  input: In
  resolve: (output: Out) => void
  reject: (error: unknown) => void
}

/** Coalesces submissions into batches run by `runner`. */
export class MicroBatcher<In, Out> {
  private queue: Pending<In, Out>[] = []
  private inFlight = 0
  private scheduled = false
  /** Batches run so far (one database round trip each, unless a failure split one). */
  batchesRun = 0
  /** Submissions handled so far; `submissionsRun / batchesRun` is the batching efficiency. */
  submissionsRun = 0

  private readonly runner: BatchRunner<In, Out>
  private readonly options: MicroBatcherOptions<In>

  constructor(runner: BatchRunner<In, Out>, options: MicroBatcherOptions<In>) {
    this.runner = runner
    this.options = options
  }

  /** Batches currently running. */
  get running(): number {
    return this.inFlight
  }

  /** Submits one input; resolves with its own output. */
  submit(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.queue.push({ input, resolve, reject })
      this.schedule()
    })
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight || this.queue.length === 0) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.flush()
    })
  }

  private flush(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const batch: Pending<In, Out>[] = []
      let weight = 0
      while (this.queue.length > 0) {
        const next = this.queue[0]!
        const nextWeight = this.options.weight(next.input)
        if (batch.length > 0 && weight + nextWeight > this.options.maxWeight) break
        batch.push(next)
        weight += nextWeight
        this.queue.shift()
      }
      this.inFlight += 1
      this.batchesRun += 1
      this.submissionsRun += batch.length
      void this.run(batch)
    }
  }

  private async run(batch: Pending<In, Out>[]): Promise<void> {
    try {
      const outputs = await this.runner(batch.map((entry) => entry.input))
      batch.forEach((entry, index) => entry.resolve(outputs[index]!))
    } catch (error) {
      for (const entry of batch) entry.reject(error)
    } finally {
      this.inFlight -= 1
      this.schedule()
    }
  }
}
