/**
 * PGlite (Postgres compiled to WebAssembly, from npm) with its pgvector extension, served over
 * the Postgres wire protocol on a loopback port: the pgvector tests need no system install.
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { freePort } from './ports.js';

export class PgliteServer {
  port = 0;
  #db: PGlite | undefined;
  #server: PGLiteSocketServer | undefined;

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async start(setupSql: string): Promise<void> {
    this.port = await freePort();
    this.#db = await PGlite.create({ extensions: { vector } });
    await this.#db.exec(setupSql);
    this.#server = new PGLiteSocketServer({
      db: this.#db,
      port: this.port,
      host: '127.0.0.1',
      maxConnections: 8,
    });
    await this.#server.start();
  }

  async stop(): Promise<void> {
    await this.#server?.stop();
    await this.#db?.close();
  }
}
