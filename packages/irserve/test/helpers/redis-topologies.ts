/**
 * Redis Cluster and Sentinel set-ups of real `redis-server` processes for tests: each node on
 * a free loopback port in a temporary directory; `kill(port)` takes one node down (a failover).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis.js';

function cli(port: number, ...args: string[]): string {
  return spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).stdout ?? '';
}

function replication(port: number): string {
  return cli(port, 'info', 'replication');
}

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

class Processes {
  readonly dir = mkdtempSync(join(tmpdir(), 'irserve-redis-'));
  readonly #children = new Map<number, ChildProcess>();

  async spawn(port: number, args: string[]): Promise<void> {
    const child = spawn('redis-server', args, { cwd: this.dir, stdio: 'ignore' });
    this.#children.set(port, child);
    await until(() => cli(port, 'ping').trim() === 'PONG', `redis-server on ${port}`);
  }

  kill(port: number): void {
    this.#children.get(port)?.kill('SIGKILL');
    this.#children.delete(port);
  }

  stopAll(): void {
    for (const port of [...this.#children.keys()]) this.kill(port);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const BASE = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];

/** A Redis Cluster: `masters` masters, each with `replicas` replicas. */
export class RedisClusterNodes {
  readonly ports: number[] = [];
  readonly #processes = new Processes();

  get url(): string {
    return `redis+cluster://${this.ports.map((port) => `127.0.0.1:${port}`).join(',')}`;
  }

  async start(masters: number, replicas = 0): Promise<void> {
    for (let i = 0; i < masters * (1 + replicas); i++) this.ports.push(await freePort());
    await Promise.all(
      this.ports.map((port) =>
        this.#processes.spawn(port, [
          '--port',
          String(port),
          ...BASE,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          '1000',
          // A replica may take over however long ago it last heard from its master (the
          // default refuses when that is over ten node timeouts, which a loaded machine reaches).
          '--cluster-replica-validity-factor',
          '0',
          // Redis 7 delays a diskless full sync by 5 s to gather replicas: sync at once.
          '--repl-diskless-sync-delay',
          '0',
        ]),
      ),
    );
    const created = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...this.ports.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        String(replicas),
        '--cluster-yes',
      ],
      { encoding: 'utf8' },
    );
    if (created.status !== 0)
      throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    await until(
      () => this.ports.every((port) => cli(port, 'cluster', 'info').includes('cluster_state:ok')),
      'cluster state ok',
    );
    // A replica still waiting for its first sync could not take over: wait until all are in sync.
    await until(
      () => this.replicas().every((port) => /master_link_status:up/.test(replication(port))),
      'replicas in sync',
    );
  }

  /** Ports of the nodes that are replicas now. */
  replicas(): number[] {
    return this.ports.filter((port) => /role:slave/.test(replication(port)));
  }

  /** Ports of the nodes that are masters now. */
  masters(): number[] {
    return this.ports.filter((port) => /role:master/.test(replication(port)));
  }

  /** Keys held by a node. */
  keys(port: number): number {
    return Number(cli(port, 'dbsize').trim());
  }

  kill(port: number): void {
    this.#processes.kill(port);
  }

  /** Resolves when every slot is served again (a replica took over the killed master's). */
  async healed(): Promise<void> {
    // The killed node may answer for a moment while it shuts down: ask who is alive each time.
    await until(() => {
      const alive = this.ports.filter((port) => cli(port, 'ping').trim() === 'PONG');
      return alive.every((port) => cli(port, 'cluster', 'info').includes('cluster_state:ok'));
    }, 'cluster healed');
  }

  stop(): void {
    this.#processes.stopAll();
  }
}

/** A master, a replica and one sentinel watching them as `mymaster` (quorum 1). */
export class RedisSentinelSet {
  masterPort = 0;
  replicaPort = 0;
  sentinelPort = 0;
  readonly #processes = new Processes();

  get url(): string {
    return `redis+sentinel://127.0.0.1:${this.sentinelPort}/mymaster`;
  }

  async start(): Promise<void> {
    this.masterPort = await freePort();
    this.replicaPort = await freePort();
    this.sentinelPort = await freePort();
    await this.#processes.spawn(this.masterPort, ['--port', String(this.masterPort), ...BASE]);
    await this.#processes.spawn(this.replicaPort, [
      '--port',
      String(this.replicaPort),
      ...BASE,
      '--replicaof',
      '127.0.0.1',
      String(this.masterPort),
    ]);
    const config = join(this.#processes.dir, 'sentinel.conf');
    writeFileSync(
      config,
      `port ${this.sentinelPort}\nbind 127.0.0.1\nsentinel monitor mymaster 127.0.0.1 ${this.masterPort} 1\n` +
        `sentinel down-after-milliseconds mymaster 1000\nsentinel failover-timeout mymaster 5000\n`,
    );
    await this.#processes.spawn(this.sentinelPort, [config, '--sentinel']);
    await until(
      () => cli(this.replicaPort, 'info', 'replication').includes('master_link_status:up'),
      'replica in sync',
    );
  }

  killMaster(): void {
    this.#processes.kill(this.masterPort);
  }

  /** Resolves when the sentinel names the replica as the master. */
  async failedOver(): Promise<void> {
    await until(
      () =>
        cli(this.sentinelPort, 'sentinel', 'get-master-addr-by-name', 'mymaster').includes(
          String(this.replicaPort),
        ),
      'sentinel failover',
      30_000,
    );
  }

  stop(): void {
    this.#processes.stopAll();
  }
}
