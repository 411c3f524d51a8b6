#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=8 --heap-growing-percent=50
// The queenctl entry point: oclif finds the commands through oclif.manifest.json and dist/commands.
// `queenctl serve` (as containers and the benchmark run it), with or without its flags, starts the broker
// without oclif, whose modules and command manifest cost it about 10 MB of RSS (issues 22 and 39); anything
// else (`--help`, an unknown flag, a value the command refuses, an environment that is not a valid
// configuration) goes through oclif's `serve`, which reports it as for any other command.
//
// V8 flags for a long-running broker whose live heap stays near 20 MB while it allocates fast:
// - --heap-growing-percent=50: after each full GC V8 lets the old generation grow to up to 4x the live heap
//   before the next one, so a loaded broker sat at 140-200 MB RSS with 18 MB live; 1.5x keeps it near 100 MB.
// - --max-semi-space-size=8 (MiB; V8's default on 64-bit is 16): every scavenge copies the requests in flight,
//   so smaller semi-spaces mean more copying; 2 MiB scavenged so often that in-flight requests were promoted to
//   the old generation, which then filled every 2-3 s. The young generation is two semi-spaces, so 16 MiB put
//   32 MB into every peak under load. In the quick bench of 2026-12-06 (bench/README.md, history; two runs of
//   each, interleaved) 8 MiB peaked at 94-100 MB in every scenario against 106-123 for 16 MiB, with rates and
//   broker CPU per message inside the runs' spread (issue 39's target: 100 MB). A deployment with memory to
//   spare can start `node --max-semi-space-size=16 "$(command -v queenctl)" serve` (docs/operations.md).
//
// glibc malloc settings (the environment env -S sets for node), for the buffers outside V8's heap:
// - MALLOC_MMAP_THRESHOLD_=131072 (128 KiB, glibc's starting value) fixes the threshold above which a block is
//   its own mapping, returned to the system when freed. Left alone, glibc raises it (up to 32 MiB) to the size
//   of each large block freed, and the trim threshold with it, so after one 5,000-message pop answer (about
//   3 MB of text and as much again to write it) such blocks came from the main heap and stayed there.
// - MALLOC_ARENA_MAX=2: V8's worker threads (GC helpers, compilers) otherwise each grow a malloc arena of
//   their own, resident after the work is done.
// Setting either threshold variable turns glibc's adjustment off (MALLOC_TRIM_THRESHOLD_ then keeps its
// 128 KiB default), so one is enough. Measured on 2 cores with 8 MiB semi-spaces (scratch load: push 100 per
// request at a fixed 10,000 msg/s for 15 s, then pop 100 + ack, then 4 readers popping 5,000 at a time; three
// runs each, median peak broker RSS for push / drain / read-back): no setting 101 / 103 / 105 MB, arena cap
// 96 / 97 / 105, fixed thresholds 97 / 97 / 107, both 95 / 96 / 96; broker CPU per 100k messages the same
// within the runs' spread. In the benchmark's quick run (16 MiB, two runs each) the broker's peaks went from
// 137-158 MB to 125-137 MB.
// Running `node bin/run.js` directly skips this line; the installed `queenctl` binary and `npm start` use it.
const argv = process.argv.slice(2)
const running = argv[0] === 'serve' ? await serveWithoutOclif(argv.slice(1)) : undefined
if (running === undefined) {
  // Global flags in any position, as the Go queenctl takes them (docs/cli.md, "Compatibility with the Go queenctl").
  const { rewriteGlobalFlags } = await import('../dist/cli/global-argv.js')
  const { readFileSync } = await import('node:fs')
  const manifest = JSON.parse(readFileSync(new URL('../oclif.manifest.json', import.meta.url), 'utf8'))
  const args = rewriteGlobalFlags(argv, manifest.commands)
  await (await import('@oclif/core')).execute({ dir: import.meta.url, args })
}

/** The broker configured by the environment and the serve flags; undefined (nothing done) when oclif must read them. */
async function serveWithoutOclif(flags) {
  const { serveFromArgv } = await import('../dist/broker/server.js')
  try {
    return await serveFromArgv(flags)
  } catch (error) {
    // Printed as the oclif command prints the same failure (a configuration problem is the operator's to fix).
    const { printFailure } = await import('../dist/cli/failure-output.js')
    process.exit(printFailure(error, { commandId: 'serve', json: false, debug: false }))
  }
}
