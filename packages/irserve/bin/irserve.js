#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm ci` through the root `prepare`).
import module from 'node:module';

// On Node >= 22.1, V8's compiled code of every module is kept on disk and reused by the next
// start (in NODE_COMPILE_CACHE when set, else the OS temp dir; NODE_DISABLE_COMPILE_CACHE=1
// turns it off). Node 20 has no such cache. It can never fail the start: an unusable directory
// only costs the speed-up.
try {
  module.enableCompileCache?.();
} catch {
  // the cache is an optimisation only
}
await import('../dist/cli/bin.js');
