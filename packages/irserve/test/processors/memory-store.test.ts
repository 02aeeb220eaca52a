import { MemoryStore } from '../../src/processors/memory-store.js';
import { cacheStoreSuite } from './cache-store.suite.js';

cacheStoreSuite('MemoryStore', async (options) => new MemoryStore(options));
