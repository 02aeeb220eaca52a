/**
 * One batch of corpus text parsed into compact arrays, so a worker thread can hand it back
 * without copying (typed arrays are transferred): the batch's distinct tokens once, then per
 * passage its id, its tokens as numbers into that table, and its impacts.
 */
import { BadRecord, parseRecord } from './parse-record.js';

export interface ParsedBatch {
  /** Lines in the batch (blank ones included), to number the next batch's lines. */
  lines: number;
  /** Distinct tokens of the good lines, in order of first appearance. */
  tokens: string[];
  ids: string[];
  /** Line (0-based, within the batch) of each passage. */
  passageLines: Uint32Array<ArrayBuffer>;
  /** Passage i's terms are `[termOffsets[i], termOffsets[i + 1])` of `termTokens`/`impacts`. */
  termOffsets: Uint32Array<ArrayBuffer>;
  termTokens: Uint32Array<ArrayBuffer>;
  impacts: Float64Array<ArrayBuffer>;
  /** Bad lines: their line (0-based, within the batch) and why. */
  badLines: number[];
  badMessages: string[];
}

/**
 * Parses the lines of `text` (one or more whole lines).
 *
 * @example parseBatch('{"id":"d1","vector":{"cat":1.2}}\n', 50).ids // ['d1']
 */
export function parseBatch(text: string, quantization: number): ParsedBatch {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const tokenNumbers = new Map<string, number>();
  const tokens: string[] = [];
  const ids: string[] = [];
  const passageLines: number[] = [];
  const termOffsets = [0];
  const termTokens: number[] = [];
  const impacts: number[] = [];
  const badLines: number[] = [];
  const badMessages: string[] = [];
  lines.forEach((line, at) => {
    if (line.trim() === '') return;
    try {
      const passage = parseRecord(line, quantization);
      ids.push(passage.id);
      passageLines.push(at);
      passage.tokens.forEach((token, i) => {
        let number = tokenNumbers.get(token);
        if (number === undefined) {
          number = tokens.push(token) - 1;
          tokenNumbers.set(token, number);
        }
        termTokens.push(number);
        impacts.push(passage.impacts[i]!);
      });
      termOffsets.push(termTokens.length);
    } catch (error) {
      if (!(error instanceof BadRecord)) throw error;
      badLines.push(at);
      badMessages.push(error.message);
    }
  });
  return {
    lines: lines.length,
    tokens,
    ids,
    passageLines: Uint32Array.from(passageLines),
    termOffsets: Uint32Array.from(termOffsets),
    termTokens: Uint32Array.from(termTokens),
    impacts: Float64Array.from(impacts),
    badLines,
    badMessages,
  };
}
