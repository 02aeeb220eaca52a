// Live syntax check of a pipeline with the server's own parser (served from the package's build
// at /ui/lib/); when it cannot load, errors show when the pipeline runs instead.

let parserModule;

async function parser() {
  parserModule ??= import('./lib/pipeline/parser.js').catch(() => null);
  return parserModule;
}

/** `{ column, message }` for a syntax error, `null` when the pipeline parses (or cannot be checked). */
export async function syntaxErrorOf(source) {
  if (source.trim() === '') return null;
  const module = await parser();
  if (!module) return null;
  try {
    module.parsePipeline(source);
    return null;
  } catch (error) {
    const column = error?.details?.column;
    return typeof column === 'number' ? { column, message: error.message } : null;
  }
}
