#!/usr/bin/env -S node --import tsx
// Runs queenctl from the TypeScript sources (no build), for development.
import { execute } from '@oclif/core'

await execute({ development: true, dir: import.meta.url })
