/**
 * The `cache_kv_url` forms: one server (`redis://`, `rediss://`, `valkey://`), a Redis Cluster
 * (`redis+cluster://host1:7000,host2:7001`: any reachable nodes, the client discovers the
 * rest) and Sentinel (`redis+sentinel://s1:26379,s2:26379/mymaster[/db]`: the sentinels and
 * the master group's name). Credentials in the URL are the data nodes'; a TLS scheme
 * (`rediss+cluster://`, `rediss+sentinel://`) encrypts every connection.
 */

export type KvTopology =
  | { kind: 'single'; url: string }
  | {
      kind: 'cluster' | 'sentinel';
      nodes: { host: string; port: number }[];
      username?: string;
      password?: string;
      tls: boolean;
      /** Sentinel: the master group's name. */
      name?: string;
      db?: number;
    };

const SINGLE = /^(redis|rediss|valkey|valkeys):\/\//;
const MULTI =
  /^(rediss?|valkeys?)\+(cluster|sentinel):\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#]+)(\/[^?#]*)?$/;

/**
 * Parses a store URL; undefined when it is none of the accepted forms.
 *
 * @example
 * parseKvUrl('redis+cluster://10.0.0.1:7000,10.0.0.2:7000')
 * // { kind: 'cluster', nodes: [{ host: '10.0.0.1', port: 7000 }, { host: '10.0.0.2', port: 7000 }], tls: false }
 */
export function parseKvUrl(url: string): KvTopology | undefined {
  if (SINGLE.test(url)) return { kind: 'single', url: url.replace(/^valkey/, 'redis') };
  const match = MULTI.exec(url);
  if (!match) return undefined;
  const [, scheme, kind, user, password, hosts, path] = match;
  const defaultPort = kind === 'sentinel' ? 26379 : 6379;
  const nodes = hosts!.split(',').map((hostPort) => {
    const portMatch = /^(.*):(\d{1,5})$/.exec(hostPort);
    const host = (portMatch ? portMatch[1]! : hostPort).replace(/^\[(.*)\]$/, '$1');
    const port = portMatch ? Number(portMatch[2]) : defaultPort;
    return { host, port };
  });
  if (nodes.some((node) => node.host === '' || node.port < 1 || node.port > 65_535))
    return undefined;
  const segments = (path ?? '').split('/').filter(Boolean);
  if (kind === 'sentinel' && segments.length === 0) return undefined;
  if (kind === 'cluster' && segments.length > 0) return undefined;
  const db = segments[1] === undefined ? undefined : Number(segments[1]);
  if (db !== undefined && !Number.isInteger(db)) return undefined;
  return {
    kind: kind as 'cluster' | 'sentinel',
    nodes,
    tls: scheme === 'rediss' || scheme === 'valkeys',
    ...(user ? { username: decodeURIComponent(user) } : {}),
    ...(password ? { password: decodeURIComponent(password) } : {}),
    ...(kind === 'sentinel' ? { name: decodeURIComponent(segments[0]!) } : {}),
    ...(db !== undefined ? { db } : {}),
  };
}

/** The URL without its password, for messages and logs. */
export function redactKvUrl(url: string): string {
  return url.replace(/^([a-z+]+:\/\/[^:@/]*:)[^@/]*@/, '$1***@');
}
