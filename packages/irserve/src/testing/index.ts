/**
 * `irserve/testing`: what an engine's tests need, for irserve's extras and for plugin authors
 * (docs/plugins.md, "Testing an engine"). A temporary folder; tiny corpora and the collection
 * and subset-mapping entries that serve them; tiny deterministic models (bag-of-words vectors)
 * and stand-ins for remote model servers on real sockets; an app with given engines, started,
 * on a free port when asked, and JSON requests through `inject`; or, for a test that creates
 * an engine itself, the context an app would lend it, its log lines kept. Nothing here imports a
 * test runner.
 */
export { jsonLines, tempDir, type TempDir } from './temp-dir.js';
export { AERO_DOCS, textCollection, writeCollection, writeSubsets } from './corpus.js';
export { bagOfWords, wordHash, words } from './models.js';
export { startStandIn, type StandIn, type StandInAnswer, type StandInRequest } from './stand-in.js';
export {
  startEmbeddingsStandIn,
  type EmbeddingsCall,
  type EmbeddingsStandIn,
} from './embeddings-stand-in.js';
export { get, post, startTestApp, type TestApp, type TestAppOptions } from './test-app.js';
export {
  engineContext,
  type EngineContextOptions,
  type TestEngineContext,
} from './engine-context.js';
export { captureLogs, type CapturedLogs, type LogRecord } from './captured-logs.js';
