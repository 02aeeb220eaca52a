import { MemoryStore } from '../../src/cache/memory-store.js';
import { cacheStoreSuite } from './cache-store.suite.js';

cacheStoreSuite('MemoryStore', async (options) => new MemoryStore(options));
