/**
 * Where a JSON file fails to parse, as `FILE:LINE:COL: not valid JSON: message`: V8 names a byte position (Node 20:
 * `... in JSON at position 14`) or also the line and column (Node 22: `... at position 14 (line 3
 * column 3)`), quotes the text around an unexpected token, or says that the text ended early.
 * The offending line follows with a caret; without a place, the message alone.
 */
export function describeJsonSyntaxError(file: string, text: string, error: Error): string {
  const message = error.message;
  const lineColumn = /\(line (\d+) column (\d+)\)/.exec(message);
  const position = /at position (\d+)/.exec(message);
  let where: { line: number; column: number } | undefined;
  if (lineColumn) where = { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  else if (position) where = lineAndColumn(text, Number(position[1]));
  else if (/Unexpected end of JSON input/.test(message)) where = lineAndColumn(text, text.length);
  else {
    const index = indexFromContext(text, message);
    if (index !== undefined) where = lineAndColumn(text, index);
  }
  const reason = message
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/\s*in JSON at position \d+/, '')
    .replace(/, (\.\.\.)?".*" is not valid JSON$/s, '');
  if (!where) return `${file}: not valid JSON: ${reason}`;
  return `${file}:${where.line}:${where.column}: not valid JSON: ${reason}${excerpt(text, where)}`;
}

/** Characters V8 quotes on each side of an unexpected token in a longer text. */
const CONTEXT_CHARACTERS = 10;

/**
 * Where an unexpected token is, from the text V8 quotes around it (`Unexpected token ']',
 * ..."2 },\n  ]\n}" is not valid JSON`): ten characters on each side, with `...` where the
 * quote does not reach an end of the text. Undefined when the text is quoted whole (short).
 */
function indexFromContext(text: string, message: string): number | undefined {
  const quoted = /^Unexpected token .*?, (\.\.\.)?"(.*)"(\.\.\.)? is not valid JSON$/s.exec(
    message,
  );
  if (!quoted) return undefined;
  const [, before, context = '', after] = quoted;
  if (before) {
    const start = text.indexOf(context);
    return start < 0 ? undefined : start + CONTEXT_CHARACTERS;
  }
  if (after) return Math.max(0, context.length - CONTEXT_CHARACTERS);
  return undefined;
}

/** 1-based line and column of a string index (columns count UTF-16 units, as editors mostly do). */
function lineAndColumn(text: string, index: number): { line: number; column: number } {
  const before = text.slice(0, Math.min(index, text.length));
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: before.length - lineStart + 1 };
}

/** The offending line (when short enough to read) and a caret under the column. */
function excerpt(text: string, where: { line: number; column: number }): string {
  const line = (text.split('\n')[where.line - 1] ?? '').replace(/\r$/, '');
  if (line.length > 200 || line.trim() === '') return '';
  return `\n      ${line}\n      ${' '.repeat(Math.max(0, where.column - 1))}^`;
}
