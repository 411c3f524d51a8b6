#!/usr/bin/env -S node --max-semi-space-size=2
// The queenctl entry point: oclif finds the commands through oclif.manifest.json and dist/commands.
//
// --max-semi-space-size=2 (MiB): V8's default young generation (16 MiB semi-spaces) let a loaded broker's
// RSS reach 170-200 MB although its live heap stays near 20 MB; with 2 MiB it stays near 130 MB with the
// same throughput (measured with the drain and push-100 benchmark scenarios on 2 cores). Running
// `node bin/run.js` directly skips this line; the installed `queenctl` binary and `npm start` use it.
import { execute } from '@oclif/core'

await execute({ dir: import.meta.url })
