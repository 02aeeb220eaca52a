import type { IrserveConfig } from '../config/schema.js';
import { ConfigError } from '../config/load.js';
import type { ImportEntry } from '../federation/remote-import.js';

/**
 * Normalises `server_imports`: a string is a REST base URL; an object may add a key (or the name
 * of an environment variable holding it), a timeout and retries. `tls: true` switches the
 * endpoint to https (and gRPC to TLS). `transport` picks REST, gRPC or either (`auto`).
 */
export function importsFromConfig(config: IrserveConfig, env: NodeJS.ProcessEnv): ImportEntry[] {
  const problems: string[] = [];
  const entries = config.server_imports.map((entry, index): ImportEntry => {
    if (typeof entry === 'string')
      return { endpoint: entry, apiKey: undefined, timeout: 600, retries: 10 };
    let apiKey = entry.api_key;
    if (entry.api_key_env !== undefined) {
      apiKey = env[entry.api_key_env];
      if (!apiKey)
        problems.push(
          `server_imports[${index}].api_key_env: environment variable ${entry.api_key_env} is not set`,
        );
    }
    const endpoint = entry.tls ? entry.endpoint.replace(/^http:/, 'https:') : entry.endpoint;
    return {
      endpoint,
      apiKey,
      timeout: entry.timeout,
      retries: entry.retries,
      transport: entry.transport,
      grpcEndpoint: entry.grpc_endpoint,
      tls: entry.tls,
    };
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return entries;
}
