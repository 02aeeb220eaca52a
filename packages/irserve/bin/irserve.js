#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm ci` through the root `prepare`).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
