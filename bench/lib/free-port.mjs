// A free TCP port on loopback, for the servers a benchmark starts.
import { createServer } from 'node:net';

/** A port no one listens on now (a probe listens on port 0 and gives its port back). */
export function freePort() {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
