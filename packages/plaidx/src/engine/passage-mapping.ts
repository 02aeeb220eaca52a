/**
 * Passage -> document ids for MaxP. RoutIR's mapping file is TSV `pid<TAB>passage_id`; with
 * `mapping_containing_passage_id` the trailing `_<n>` of the passage id is dropped, so
 * `doc7_3` counts for `doc7` (an id without `_` stays whole, where RoutIR made it empty).
 */
import { readFile } from 'node:fs/promises';
import { IrserveError } from 'irserve/plugin';

/**
 * Reads the mapping; every passage of the index must have exactly one line.
 *
 * @example await readPassageMapping('index/mapping.tsv', 3, true) // ['doc0', 'doc0', 'doc1']
 */
export async function readPassageMapping(
  path: string,
  numPassages: number,
  stripPassageNumber: boolean,
): Promise<string[]> {
  const fail = (why: string): never => {
    throw new IrserveError('ERR_CONFIG', `passage_mapping: ${path}: ${why}`);
  };
  const text = await readFile(path, 'utf8').catch((error: Error) =>
    fail(`cannot read (${error.message})`),
  );
  const ids: (string | undefined)[] = new Array<string | undefined>(numPassages);
  let line = 0;
  for (const raw of text.split('\n')) {
    line++;
    const row = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (row === '') continue;
    const [pidText, passageId, ...rest] = row.split('\t');
    const pid = Number(pidText);
    if (
      passageId === undefined ||
      passageId === '' ||
      rest.length > 0 ||
      !Number.isSafeInteger(pid)
    )
      fail(`line ${line}: expected "pid<TAB>passage_id"`);
    if (pid < 0 || pid >= numPassages)
      fail(`line ${line}: pid ${pid} is not in the index (0..${numPassages - 1})`);
    if (ids[pid] !== undefined) fail(`line ${line}: pid ${pid} appears twice`);
    ids[pid] = stripPassageNumber ? documentOf(passageId!) : passageId!;
  }
  const missing = ids.findIndex((id) => id === undefined);
  if (missing >= 0) fail(`no line for pid ${missing} (the index has ${numPassages} passages)`);
  return ids as string[];
}

/** `doc7_3` -> `doc7`; an id without `_` is its own document. */
export function documentOf(passageId: string): string {
  const cut = passageId.lastIndexOf('_');
  return cut > 0 ? passageId.slice(0, cut) : passageId;
}
