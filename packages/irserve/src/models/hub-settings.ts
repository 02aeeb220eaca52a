/**
 * Where the Hugging Face Hub and its cache are, read from the same environment variables as
 * Python's `huggingface_hub` (its `constants.py`), so that one setting serves both.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export interface HubSettings {
  /** The hub's base URL, without a trailing slash (`HF_ENDPOINT`). */
  readonly endpoint: string;
  /** The cache folder holding `models--org--name` (`HF_HUB_CACHE`, ...). */
  readonly cacheDir: string;
  /** The token sent to the endpoint (`HF_TOKEN`, else the token file). */
  readonly token: string | undefined;
  /** Where the token came from, for error messages (never the token itself). */
  readonly tokenSource: string | undefined;
  /** Never touch the network (`HF_HUB_OFFLINE=1`, or irserve's `--offline`). */
  readonly offline: boolean;
  /** Seconds to wait for the metadata of a file (`HF_HUB_ETAG_TIMEOUT`, default 10). */
  readonly metadataTimeoutS: number;
  /** Seconds a download may stall before it is cut (`HF_HUB_DOWNLOAD_TIMEOUT`, default 10). */
  readonly downloadTimeoutS: number;
}

const TRUE_VALUES = new Set(['1', 'ON', 'YES', 'TRUE']);

/** Whether an environment value means "on", as `huggingface_hub` reads its flags. */
export function isTrue(value: string | undefined): boolean {
  return value !== undefined && TRUE_VALUES.has(value.toUpperCase());
}

/** `~` and `$VAR` expanded, as Python's `expanduser(expandvars(...))`. */
function expand(path: string, env: NodeJS.ProcessEnv): string {
  const vars = path.replace(/\$(\w+)|\$\{(\w+)\}/g, (all, a?: string, b?: string) => {
    const value = env[(a ?? b)!];
    return value === undefined ? all : value;
  });
  const home = env.HOME ?? homedir();
  return resolve(vars === '~' ? home : vars.startsWith('~/') ? join(home, vars.slice(2)) : vars);
}

/** `HF_HOME`, else `$XDG_CACHE_HOME/huggingface`, else `~/.cache/huggingface`. */
function hfHome(env: NodeJS.ProcessEnv): string {
  if (env.HF_HOME) return expand(env.HF_HOME, env);
  const xdg = env.XDG_CACHE_HOME || join(env.HOME ?? homedir(), '.cache');
  return expand(join(xdg, 'huggingface'), env);
}

function seconds(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new Error(`${name} must be a positive number of seconds, got "${value}"`);
  return parsed;
}

/**
 * The hub settings of an environment: `HF_ENDPOINT`; `HF_HUB_CACHE` (else
 * `HUGGINGFACE_HUB_CACHE`, else `HF_HOME/hub`, else `~/.cache/huggingface/hub`); `HF_TOKEN`
 * (else `HUGGING_FACE_HUB_TOKEN`, else the file `HF_TOKEN_PATH`, else `HF_HOME/token`);
 * `HF_HUB_OFFLINE` (or `TRANSFORMERS_OFFLINE`), forced on by `offline`.
 *
 * @example
 * const settings = await hubSettings(process.env, { offline: false });
 * settings.cacheDir // '/home/me/.cache/huggingface/hub'
 */
export async function hubSettings(
  env: NodeJS.ProcessEnv,
  options: { offline?: boolean } = {},
): Promise<HubSettings> {
  const home = hfHome(env);
  const cache = env.HF_HUB_CACHE || env.HUGGINGFACE_HUB_CACHE;
  const { token, tokenSource } = await readToken(env, home);
  return {
    endpoint: (env.HF_ENDPOINT || 'https://huggingface.co').replace(/\/+$/, ''),
    cacheDir: cache ? expand(cache, env) : join(home, 'hub'),
    token,
    tokenSource,
    offline: options.offline === true || isTrue(env.HF_HUB_OFFLINE || env.TRANSFORMERS_OFFLINE),
    metadataTimeoutS: seconds(env.HF_HUB_ETAG_TIMEOUT, 10, 'HF_HUB_ETAG_TIMEOUT'),
    downloadTimeoutS: seconds(env.HF_HUB_DOWNLOAD_TIMEOUT, 10, 'HF_HUB_DOWNLOAD_TIMEOUT'),
  };
}

async function readToken(
  env: NodeJS.ProcessEnv,
  home: string,
): Promise<{ token: string | undefined; tokenSource: string | undefined }> {
  for (const name of ['HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN'] as const) {
    const value = env[name]?.trim();
    if (value) return { token: value, tokenSource: name };
  }
  const file = env.HF_TOKEN_PATH ? expand(env.HF_TOKEN_PATH, env) : join(home, 'token');
  const text = await readFile(file, 'utf8').catch(() => '');
  const token = text.trim();
  return token ? { token, tokenSource: file } : { token: undefined, tokenSource: undefined };
}
