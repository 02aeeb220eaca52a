/**
 * A model reference as a config names it: a local path, or a Hugging Face Hub id.
 *
 * ```
 * [hf://]org/name[@revision][/path/in/repo][:QUANT]
 * ```
 *
 * - `revision`: a branch, tag or commit (default `main`); one with a slash is written
 *   percent-encoded, as the hub's URLs and `huggingface_hub`'s `hf://` paths do
 *   (`org/name@refs%2Fpr%2F1`).
 * - `/path/in/repo`: a file (`onnx/model_quantized.onnx`, `qwen3-embedding-q8_0.gguf`) or a
 *   folder (`onnx`) of the repository, for repositories that hold several.
 * - `:QUANT`: a GGUF quantisation (`Q8_0`, `Q4_K_M`), matched against the `.gguf` file names.
 *
 * Whether a string is a path or an id is decided by the resolver: a path that exists wins.
 */

/** A parsed hub id. */
export interface HubReference {
  /** `org/name`. */
  readonly repo: string;
  /** The revision asked for (`main` when none was given). */
  readonly revision: string;
  /** A file or folder inside the repository, without leading or trailing slashes. */
  readonly path?: string;
  /** A GGUF quantisation name (`Q8_0`), as written. */
  readonly quant?: string;
}

const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?$/;
const QUANT = /^[A-Za-z0-9_.-]+$/;

/**
 * The hub id `text` spells, or a reason why it is not one (then it can only be a path).
 *
 * @example
 * parseHubReference('BAAI/bge-small-en-v1.5@v1/onnx/model.onnx')
 * // { repo: 'BAAI/bge-small-en-v1.5', revision: 'v1', path: 'onnx/model.onnx' }
 * parseHubReference('./models/minilm') // { error: 'it starts like a path (./, ../, /, ~)' }
 */
export function parseHubReference(text: string): HubReference | { error: string } {
  let rest = text.startsWith('hf://') ? text.slice(5) : text;
  if (/^(\.{1,2}[/\\]|[/\\~]|[A-Za-z]:[/\\])/.test(rest) || rest === '.' || rest === '..')
    return { error: 'it starts like a path (./, ../, /, ~)' };
  let quant: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon >= 0) {
    quant = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!QUANT.test(quant)) return { error: `"${quant}" after ":" is not a quantisation name` };
  }
  const [org, nameAndRevision, ...inside] = rest.split('/');
  if (org === undefined || nameAndRevision === undefined)
    return { error: 'a hub id has the form org/name' };
  const at = nameAndRevision.indexOf('@');
  const name = at >= 0 ? nameAndRevision.slice(0, at) : nameAndRevision;
  const revision = at >= 0 ? decodeRevision(nameAndRevision.slice(at + 1)) : 'main';
  for (const part of [org, name])
    if (!NAME.test(part) || part.includes('--') || part.includes('..'))
      return { error: `"${part}" is not a valid repository name part` };
  if (org.length + name.length + 1 > 96)
    return { error: 'a repository id has at most 96 characters' };
  if (revision === undefined || revision === '' || revision.includes('..'))
    return { error: 'the revision after "@" is empty or malformed' };
  const path = inside.filter((part) => part !== '').join('/');
  if (inside.some((part) => part === '..' || part === '.'))
    return { error: 'the path inside the repository may not contain . or .. parts' };
  return {
    repo: `${org}/${name}`,
    revision,
    ...(path ? { path } : {}),
    ...(quant ? { quant } : {}),
  };
}

function decodeRevision(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * The reference written back (`org/name@rev/path:QUANT`), for logs and commands to run.
 *
 * @example
 * formatHubReference({ repo: 'org/m', revision: 'refs/pr/1' }) // 'org/m@refs%2Fpr%2F1'
 */
export function formatHubReference(reference: HubReference): string {
  const revision =
    reference.revision === 'main' ? '' : `@${encodeURIComponent(reference.revision)}`;
  return `${reference.repo}${revision}${reference.path ? `/${reference.path}` : ''}${
    reference.quant ? `:${reference.quant}` : ''
  }`;
}

/** Whether `revision` is a full commit hash (40 hex digits), as the hub's refs resolve to. */
export function isCommitHash(revision: string): boolean {
  return /^[0-9a-f]{40}$/.test(revision);
}
