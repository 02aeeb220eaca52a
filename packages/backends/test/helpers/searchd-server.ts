/**
 * A real Sphinx `searchd` (Debian `sphinxsearch`) started by a test: a real-time index `rt`
 * (title, content, string attributes docid and subset) and, optionally, a distributed index
 * `dist` over its own `rt` and other servers' `rt` agents.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { binaryAvailable, freePort } from './ports.js';
import { stopChild, untilReady } from './spawn-server.js';

export function searchdAvailable(): boolean {
  return binaryAvailable('searchd', ['--help'], 'sphinxsearch');
}

export class SearchdServer {
  sqlPort = 0;
  apiPort = 0;
  readonly #dir = mkdtempSync(join(tmpdir(), 'irserve-searchd-'));
  #child: ChildProcess | undefined;

  /** Starts with `rt`, and `dist` over `rt` plus the given agents (`host:apiPort`). */
  async start(agents: string[] = []): Promise<void> {
    if (this.sqlPort === 0) this.sqlPort = await freePort();
    if (this.apiPort === 0) this.apiPort = await freePort();
    const config = join(this.#dir, 'sphinx.conf');
    writeFileSync(config, this.#config(agents));
    const child = spawn('searchd', ['--config', config, '--nodetach'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    await untilReady(child, 'searchd', /accepting connections/, 15_000);
  }

  /** Inserts documents into `rt` (numeric ids from 1 up, irserve ids in `docid`). */
  async insert(
    docs: { id: string; title: string; text: string; subset: string }[],
    firstId: number,
  ): Promise<void> {
    const connection = await mysql.createConnection({ host: '127.0.0.1', port: this.sqlPort });
    try {
      for (const [i, doc] of docs.entries())
        await connection.query(
          'INSERT INTO rt (id, title, content, docid, subset) VALUES (?, ?, ?, ?, ?)',
          [firstId + i, doc.title, doc.text, doc.id, doc.subset],
        );
    } finally {
      await connection.end();
    }
  }

  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    await stopChild(child, 'SIGKILL');
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #config(agents: string[]): string {
    const dist =
      agents.length === 0
        ? ''
        : `index dist\n{\n  type = distributed\n  local = rt\n${agents.map((a) => `  agent = ${a}:rt\n`).join('')}  agent_query_timeout = 3000\n}\n`;
    return (
      `index rt\n{\n  type = rt\n  path = ${join(this.#dir, 'rt')}\n  rt_field = title\n  rt_field = content\n` +
      `  rt_attr_string = docid\n  rt_attr_string = subset\n  index_field_lengths = 1\n}\n${dist}` +
      `searchd\n{\n  listen = 127.0.0.1:${this.sqlPort}:mysql41\n  listen = 127.0.0.1:${this.apiPort}\n` +
      `  log = ${join(this.#dir, 'searchd.log')}\n  query_log = ${join(this.#dir, 'query.log')}\n` +
      `  pid_file = ${join(this.#dir, 'searchd.pid')}\n  binlog_path =\n  workers = threads\n}\n`
    );
  }
}
