/**
 * RoutIR's `id_to_lang_mapping`: a file mapping document ids to languages, read at open. JSON
 * (an object of id to language) when the name ends in `.json`, else TSV (`id<TAB>language` per
 * line). Pickle files are refused with a message saying how to convert them.
 */
import { readFile } from 'node:fs/promises';
import { IrserveError } from '../errors.js';
import { onceAsync } from './once.js';

export class LanguageMap {
  readonly path: string;
  #map = new Map<string, string>();
  readonly open: () => Promise<void>;

  constructor(path: string) {
    this.path = path;
    this.open = onceAsync(() => this.#load());
  }

  async #load(): Promise<void> {
    if (/\.(pkl|pickle)$/i.test(this.path)) {
      throw new IrserveError(
        'ERR_CONFIG',
        `${this.path}: pickle is not supported; convert it to JSON (python -c "import pickle,json,sys; json.dump(pickle.load(open(sys.argv[1],'rb')), open(sys.argv[2],'w'))" in.pkl out.json)`,
      );
    }
    const text = await readFile(this.path, 'utf8');
    this.#map = /\.json$/i.test(this.path) ? parseJson(text, this.path) : parseTsv(text);
  }

  /** The language of a document, or undefined. */
  get(id: string): string | undefined {
    return this.#map.get(id);
  }
}

function parseJson(text: string, path: string): Map<string, string> {
  const data: unknown = JSON.parse(text);
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new IrserveError(
      'ERR_CONFIG',
      `${path}: id_to_lang_mapping must be a JSON object of id to language`,
    );
  }
  const map = new Map<string, string>();
  for (const [id, lang] of Object.entries(data)) if (typeof lang === 'string') map.set(id, lang);
  return map;
}

function parseTsv(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const tab = line.indexOf('\t');
    if (tab <= 0) continue;
    map.set(line.slice(0, tab), line.slice(tab + 1));
  }
  return map;
}
