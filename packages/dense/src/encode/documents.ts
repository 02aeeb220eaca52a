/**
 * Where irserve-encode reads documents: a JSONL corpus (gzip allowed), or a text view of a
 * collection declared in an irserve config. Each yields `{ id, text }` in corpus order.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { pino } from 'pino';
import { BaseEngine, type CollectionCatalog, type EngineInit, type Scores } from 'irserve/plugin';
import { createApp, loadConfigFile } from 'irserve';

export interface EncodeDocument {
  id: string;
  text: string;
}

export interface JsonlSource {
  path: string;
  /** The id field (default `id`). */
  idField: string;
  /** Fields joined with a space into the text (default `title text`, as RoutIR). */
  fields: string[];
}

/**
 * Documents of a JSONL file; lines whose text is empty are skipped (as RoutIR's encoder does),
 * a line that is not JSON or lacks an id is an error naming the line.
 *
 * @example
 * for await (const doc of jsonlDocuments({ path: 'corpus.jsonl', idField: 'id', fields: ['text'] })) ...
 */
export async function* jsonlDocuments(source: JsonlSource): AsyncGenerator<EncodeDocument> {
  const raw = createReadStream(source.path);
  const input = source.path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  const lines = createInterface({ input, crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number++;
    if (line.trim() === '') continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`${source.path}:${number}: not a JSON object`);
    }
    const id = record?.[source.idField];
    if (typeof id !== 'string' && typeof id !== 'number')
      throw new Error(`${source.path}:${number}: no string "${source.idField}" field`);
    const text = source.fields
      .map((field) => record[field])
      .filter((value): value is string => typeof value === 'string' && value !== '')
      .join(' ');
    if (text.trim() !== '') yield { id: String(id), text };
  }
}

/**
 * Documents of a collection's text view, from an irserve config file (no service is started:
 * the app is built with one tap engine that only captures the collections).
 *
 * @example
 * for await (const doc of collectionDocuments('config.json', 'msmarco')) ...
 */
export async function* collectionDocuments(
  configPath: string,
  name: string,
  viewName?: string,
): AsyncGenerator<EncodeDocument> {
  const { config, configDir } = await loadConfigFile(configPath);
  let catalog: CollectionCatalog | undefined;
  class IrserveEncodeTap extends BaseEngine {
    constructor(init: EngineInit) {
      super(init);
      catalog = init.context.collections;
    }
    async searchBatch(): Promise<Scores[]> {
      return [];
    }
  }
  const app = await createApp(
    {
      ...config,
      services: [{ name: 'irserve-encode', engine: 'IrserveEncodeTap', config: {} }],
      server_imports: [],
    },
    {
      configDir,
      engines: [IrserveEncodeTap],
      extras: false,
      logger: pino({ level: 'warn' }),
      interactive: false,
    },
  );
  try {
    const view = catalog!.get(name).view(viewName);
    if (view.kind !== 'text' || !view.documents)
      throw new Error(
        `collection ${name}: view ${view.name} is not a text view that lists its documents`,
      );
    await view.open();
    for await (const doc of view.documents())
      if (doc.text.trim() !== '') yield { id: doc.id, text: withTitle(doc.title, doc.text) };
  } finally {
    await app.close();
  }
}

/** The title before the text, unless the view's text already starts with it. */
function withTitle(title: string | undefined, text: string): string {
  return title && !text.startsWith(title) ? `${title} ${text}` : text;
}
