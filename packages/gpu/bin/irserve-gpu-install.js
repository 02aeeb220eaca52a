#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm ci` through the root `prepare`).
import '../dist/cli/main.js';
