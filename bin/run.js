#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=50
// The queenctl entry point: oclif finds the commands through oclif.manifest.json and dist/commands.
//
// V8 flags for a long-running broker whose live heap stays near 20 MB while it allocates fast:
// - --heap-growing-percent=50: after each full GC V8 lets the old generation grow to up to 4x the live heap
//   before the next one, so a loaded broker sat at 140-200 MB RSS with 18 MB live; 1.5x keeps it near 100 MB.
// - --max-semi-space-size=4 (MiB): the default 16 MiB semi-spaces cost ~40 MB of RSS; 2 MiB scavenged so often
//   that in-flight requests were promoted to the old generation, which then filled every 2-3 s.
// Measured together on 2 cores (push 100 per request, then pop 100 + ack, 8 clients each, /metrics between):
// RSS after the load 98 MB instead of 138-141 MB with 2 MiB semi-spaces alone, broker CPU per 100k messages
// 4.05 / 4.5 s (push / drain) instead of 4.2-4.7 / 4.8-5.7 s. Running `node bin/run.js` directly skips this
// line; the installed `queenctl` binary and `npm start` use it.
import { execute } from '@oclif/core'

await execute({ dir: import.meta.url })
