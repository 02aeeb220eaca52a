import type { LanguageMap } from '../language-map.js';
import type { TextDocument, TextView } from '../types.js';
import { missingFields } from './field-check.js';
import { parseLine, toTextDocument, type TextFields } from './text-document.js';

/** Where a text view reads raw JSON lines: the JSONL reader or the sharded gzip reader. */
export interface LineSource {
  /** For messages. */
  readonly path: string;
  open(): Promise<void>;
  getLine(id: string): Promise<string | undefined>;
  has(id: string): Promise<boolean>;
  fingerprint(): Promise<string>;
  /** Every document line in corpus order, when the source can enumerate. */
  entries?(): AsyncIterable<{ id: string; line: string }>;
  close(): Promise<void>;
}

/**
 * A text view over JSON lines (sources `text_jsonl` and `gzip_shards`): content fields joined
 * by the separator, `title` kept, `language` from the collection's mapping. Views can share a
 * source.
 */
export class LineTextView implements TextView {
  readonly kind = 'text' as const;
  readonly name: string;
  readonly #source: LineSource;
  readonly #fields: TextFields;
  readonly #languages: LanguageMap | undefined;
  readonly #warn: ((message: string) => void) | undefined;
  #fieldsChecked = false;

  constructor(options: {
    name: string;
    source: LineSource;
    fields: TextFields;
    languages?: LanguageMap | undefined;
    /** Told (once, at open) about `content_fields` that the first documents do not have. */
    warn?: ((message: string) => void) | undefined;
  }) {
    this.name = options.name;
    this.#source = options.source;
    this.#fields = options.fields;
    this.#languages = options.languages;
    this.#warn = options.warn;
    const source = options.source;
    if (source.entries) {
      const entries = source.entries.bind(source);
      this.documents = async function* (this: LineTextView) {
        await this.open();
        for await (const { id, line } of entries()) yield this.#toDocument(id, line);
      };
    }
  }

  readonly documents?: () => AsyncIterable<TextDocument>;

  #toDocument(id: string, line: string): TextDocument {
    const doc = parseLine(line, `${this.#source.path} (id ${JSON.stringify(id.slice(0, 200))})`);
    return toTextDocument(id, doc, this.#fields, this.#languages?.get(id));
  }

  async open(): Promise<void> {
    await this.#source.open();
    await this.#languages?.open();
    if (this.#warn && !this.#fieldsChecked) {
      this.#fieldsChecked = true;
      await this.#checkFields(this.#warn);
    }
  }

  async #checkFields(warn: (message: string) => void): Promise<void> {
    const { missing, seen } = await missingFields(this.#source, this.#fields.contentFields);
    for (const field of missing) {
      warn(
        `view "${this.name}" of ${this.#source.path}: content_fields entry "${field}" is in none of the first documents (their fields: ${seen.join(', ')}); its text will be empty`,
      );
    }
  }

  async has(id: string): Promise<boolean> {
    return this.#source.has(id);
  }

  async get(id: string): Promise<TextDocument | undefined> {
    await this.open();
    const line = await this.#source.getLine(id);
    return line === undefined ? undefined : this.#toDocument(id, line);
  }

  async fingerprint(): Promise<string> {
    return this.#source.fingerprint();
  }

  async close(): Promise<void> {
    await this.#source.close();
  }
}
