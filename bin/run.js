#!/usr/bin/env node
// The queenctl entry point: oclif finds the commands through oclif.manifest.json and dist/commands.
import { execute } from '@oclif/core'

await execute({ dir: import.meta.url })
