#!/usr/bin/env -S node --max-semi-space-size=16 --heap-growing-percent=50
// The queenctl entry point: oclif finds the commands through oclif.manifest.json and dist/commands.
//
// V8 flags for a long-running broker whose live heap stays near 20 MB while it allocates fast:
// - --heap-growing-percent=50: after each full GC V8 lets the old generation grow to up to 4x the live heap
//   before the next one, so a loaded broker sat at 140-200 MB RSS with 18 MB live; 1.5x keeps it near 100 MB.
// - --max-semi-space-size=16 (MiB, V8's default on 64-bit): every scavenge copies the requests in flight, so
//   smaller semi-spaces mean more copying; 2 MiB scavenged so often that in-flight requests were promoted to
//   the old generation, which then filled every 2-3 s. Measured on 2 cores (scratch load: push 100 per request
//   at a fixed 12,000 msg/s for 15 s, then pop 100 + ack, two runs each, broker CPU per 100k messages from
//   /proc): 4 MiB 5.07-5.17 s push / 3.80-4.05 s drain, 730-740 scavenges taking 2.4-2.5 s, RSS after 100 MB;
//   8 MiB 4.76-4.91 / 3.18-3.54, RSS 109-110 MB; 16 MiB 4.48-4.60 / 2.83-3.39, 190 scavenges taking 0.8-1.1 s,
//   RSS 125-128 MB. The RSS is the semi-spaces themselves, paid once; perf.md's budget is 150 MB.
// Running `node bin/run.js` directly skips this line; the installed `queenctl` binary and `npm start` use it.
import { execute } from '@oclif/core'

await execute({ dir: import.meta.url })
