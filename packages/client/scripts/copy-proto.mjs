#!/usr/bin/env node
// The gRPC contract has one source, irserve's `proto/routir.proto`. The client ships a copy of it
// (its gRPC client loads the file at run time); `npm run build` writes that copy here, and
// test/generated-types.test.ts checks that it is the server's. The copy is not committed.
import { copyFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../../irserve/proto/routir.proto', import.meta.url));
const target = fileURLToPath(new URL('../proto/routir.proto', import.meta.url));
mkdirSync(fileURLToPath(new URL('../proto/', import.meta.url)), { recursive: true });
copyFileSync(source, target);
