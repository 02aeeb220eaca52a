// Where a request's time goes around a back-end engine's call, with one request in flight:
// before the engine is entered (HTTP, route, pipeline, batcher), in it (the back-end's round
// trip and its rows read) and after it (result check, fusion, the answer written and read
// back); for PostgreSQL, also the driver's round trip inside the engine's time (from the
// statement handed to the driver to the first bytes of the answer read). For
// `bench/backends.mjs --phases`.
import { median } from './median.mjs';

/**
 * A recorder of engine calls: `watch` times every `searchBatch` of an engine class (two clock
 * reads a call), `phased` wraps a side's call to record its three phases. Only meaningful with
 * one request in flight, where the engine call seen last is the request's own.
 */
export function engineTimer() {
  const spans = [];
  const trips = [];
  const watched = new WeakSet();
  // Calls of `phased` under way: engine calls are recorded only then, so the passes that are not
  // phased (the loaded one) pay no allocation for them.
  let phasing = 0;
  return {
    watch(engineClass) {
      if (watched.has(engineClass)) return;
      watched.add(engineClass);
      const original = engineClass.prototype.searchBatch;
      engineClass.prototype.searchBatch = async function searchBatch(requests) {
        const entered = performance.now();
        try {
          return await original.call(this, requests);
        } finally {
          if (phasing > 0) spans.push([entered, performance.now()]);
        }
      };
    },
    /**
     * Times the round trip of every statement a `pg` Client sends while a phased call runs: the
     * query handed over, then the first data on the connection's socket.
     */
    watchRoundTrips(ClientClass) {
      if (watched.has(ClientClass)) return;
      watched.add(ClientClass);
      const original = ClientClass.prototype.query;
      ClientClass.prototype.query = function query(...args) {
        if (phasing === 0) return original.apply(this, args);
        const trip = [performance.now(), NaN];
        this.connection.stream.once('data', () => (trip[1] = performance.now()));
        trips.push(trip);
        return original.apply(this, args);
      };
    },
    /**
     * `call`, recording [before, in, after, round trip] (ms) into `phases` (the round trip NaN
     * unless watched); calls that never reach the engine are left out.
     */
    phased(call, phases) {
      return async (query) => {
        spans.length = 0;
        trips.length = 0;
        phasing++;
        const started = performance.now();
        let result;
        try {
          result = await call(query);
        } finally {
          phasing--;
        }
        const ended = performance.now();
        const span = spans.at(-1);
        const trip = trips.at(-1);
        const roundTrip = trip ? trip[1] - trip[0] : NaN;
        if (span) phases.push([span[0] - started, span[1] - span[0], ended - span[1], roundTrip]);
        return result;
      };
    },
  };
}

/** The median of each phase (before, in, after the engine, round trip), in ms; NaN if none. */
export function phaseMedians(phases) {
  return [0, 1, 2, 3].map((i) => {
    const values = phases.map((phase) => phase[i]).filter((ms) => !Number.isNaN(ms));
    return values.length > 0 ? median(values) : NaN;
  });
}
