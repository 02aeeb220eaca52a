import { readdir, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { UsageError, type CliIo } from '../cli-kit/index.js';
import type { CommandRun } from './command-run.js';
import { detectFields, sampleDocuments, type DetectedFields } from './init-detect.js';
import type { INIT } from './usage.js';

/** A collection/service name from a file name: letters, digits, `_` and `-`, starting with a letter. */
export function nameFromFile(file: string): string {
  const stem = basename(file).replace(/\.jsonl$/i, '');
  const name = stem.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^[^A-Za-z]+/, '');
  return name === '' ? 'docs' : name;
}

async function jsonlFiles(input: string): Promise<string[]> {
  const info = await stat(input).catch(() => {
    throw new UsageError(`${input}: no such file or folder`);
  });
  if (info.isFile()) return [resolve(input)];
  const names = (await readdir(input)).filter((name) => /\.jsonl$/i.test(name)).sort();
  if (names.length === 0)
    throw new UsageError(`${input}: no .jsonl file in this folder (one JSON document per line)`);
  return names.map((name) => resolve(input, name));
}

/** The config entries of one corpus file: a collection, one or two BM25 services, a fused alias. */
function entriesFor(name: string, docPath: string, fields: DetectedFields) {
  const source = {
    source: 'text_jsonl',
    doc_path: docPath,
    id_field: fields.idField,
    content_fields: fields.textFields,
    ...(fields.titleField ? { title_field: fields.titleField } : {}),
  };
  const collection = { name, views: { text: { kind: 'text', source } } };
  const bm25 = {
    name: `${name}-bm25`,
    engine: 'BM25',
    config: { collection: name, ...(fields.titleField ? {} : { fields: ['text'] }) },
  };
  if (!fields.titleField) return { collection, services: [bm25], alias: undefined };
  const title = {
    name: `${name}-bm25-title`,
    engine: 'BM25',
    config: { collection: name, fields: ['title'] },
  };
  const alias = [`${name}-fused`, `{${bm25.name}, ${title.name}}RRF%100`] as const;
  return { collection, services: [bm25, title], alias };
}

/**
 * `irserve init <folder|file.jsonl>`: writes a starter config (collections, BM25, fusion,
 * content) for JSONL documents and prints the next two commands.
 *
 * @example
 * await main(['init', 'corpus/', '--out', 'irserve.json']);
 */
export const initCommand: CommandRun<typeof INIT.flags> = async ({ flags, positionals, io }) => {
  const out = resolve(flags.out);
  if (!flags.force && (await stat(out).catch(() => undefined)))
    throw new UsageError(
      `${flags.out} exists: pass --force to overwrite it, or --out another.json`,
    );
  const { config, summary } = await starterConfig(
    await jsonlFiles(positionals[0]!),
    out,
    givenFields(flags),
  );
  await writeFile(out, `${JSON.stringify(config, null, 2)}\n`);
  printNextSteps(io, out, (config.services[0] as { name: string }).name, summary);
};

/** The fields the user named on the command line (the others are detected). */
function givenFields(flags: {
  id_field?: string | undefined;
  text_fields?: string | undefined;
  title_field?: string | undefined;
}) {
  return {
    ...(flags.id_field ? { idField: flags.id_field } : {}),
    ...(flags.text_fields
      ? {
          textFields: flags.text_fields
            .split(',')
            .map((f) => f.trim())
            .filter(Boolean),
        }
      : {}),
    ...(flags.title_field ? { titleField: flags.title_field } : {}),
  };
}

/** A collection with its services for each JSONL file (paths relative to `out`), and a line each. */
async function starterConfig(
  files: readonly string[],
  out: string,
  given: Parameters<typeof detectFields>[1],
) {
  const config = {
    collections: [] as unknown[],
    services: [] as unknown[],
    pipeline_aliases: {} as Record<string, string>,
  };
  const summary: string[] = [];
  const used = new Set<string>();
  for (const file of files) {
    let fields: DetectedFields;
    try {
      fields = detectFields(await sampleDocuments(file), given);
    } catch (error) {
      throw new UsageError(`${relative('.', file)}: ${(error as Error).message}`);
    }
    let name = nameFromFile(file);
    for (let n = 2; used.has(name); n++) name = `${nameFromFile(file)}-${n}`;
    used.add(name);
    const docPath = relative(dirname(out), file).split(sep).join('/');
    const entries = entriesFor(name, docPath, fields);
    config.collections.push(entries.collection);
    config.services.push(...entries.services);
    if (entries.alias) config.pipeline_aliases[entries.alias[0]] = entries.alias[1];
    summary.push(
      `  ${name}: id "${fields.idField}", text ${fields.textFields.map((f) => `"${f}"`).join(' + ')}` +
        (fields.titleField ? `, title "${fields.titleField}"` : '') +
        ` -> ${entries.services.map((s) => s.name).join(', ')}${entries.alias ? `, ${entries.alias[0]}` : ''}`,
    );
  }
  return { config, summary };
}

/** What was written, and the two commands to try it. */
function printNextSteps(
  io: CliIo,
  out: string,
  firstService: string,
  summary: readonly string[],
): void {
  io.out(`wrote ${relative('.', out) || out}:\n${summary.join('\n')}

next:
  npx irserve ${relative('.', out) || out}          (builds the BM25 index on first start)
  open http://127.0.0.1:8000/ui/     or:
  curl -s http://127.0.0.1:8000/search -H 'content-type: application/json' \\
    -d '{"service": "${firstService}", "query": "your words", "limit": 5}'`);
}
