export interface KeyResolution {
  apiKey: string | undefined;
  warnings: string[];
}

/**
 * The bearer token: `IRSERVE_API_KEY` (or RoutIR's `ROUTIR_API_KEY`) is preferred because
 * command-line arguments are visible in process listings; `--api_key` still works, with a warning.
 * An empty variable means no key, with a warning (an unset secret in a deployment is a mistake).
 */
export function resolveApiKey(flag: string | undefined, env: NodeJS.ProcessEnv): KeyResolution {
  const warnings: string[] = [];
  const variable =
    env.IRSERVE_API_KEY !== undefined
      ? 'IRSERVE_API_KEY'
      : env.ROUTIR_API_KEY !== undefined
        ? 'ROUTIR_API_KEY'
        : undefined;
  const fromEnv = variable ? env[variable] : undefined;
  if (flag !== undefined) {
    warnings.push(
      '--api_key is visible to every user of this machine in process listings; prefer the IRSERVE_API_KEY environment variable',
    );
    if (flag === '') {
      warnings.push('--api_key is empty: requests need no credentials');
      return { apiKey: undefined, warnings };
    }
    if (fromEnv) warnings.push(`--api_key overrides ${variable}`);
    return { apiKey: flag, warnings };
  }
  if (variable && fromEnv !== undefined && fromEnv.trim() === '') {
    warnings.push(`${variable} is set but empty: requests need no credentials`);
    return { apiKey: undefined, warnings };
  }
  return { apiKey: fromEnv, warnings };
}

/** Whether a host binds only the loopback interface. */
export function isLoopback(host: string): boolean {
  return (
    host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host)
  );
}
