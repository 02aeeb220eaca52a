// A pane's run exported: as a TREC run file (what trec_eval and `irserve eval --run` read) and
// as the `curl` command that sends the same request to the same server.
import { pipelineBody } from './api.js';

/**
 * TREC run lines `qid Q0 docid rank score tag` for a ranked list (best first, ranks from 1);
 * the tag is the pipeline without spaces (a run file's fields are split on white space).
 */
export function trecRun(ranked, { queryId, pipeline }) {
  const tag = pipeline.replace(/\s+/g, '') || 'irserve';
  return ranked
    .map(({ id, score, rank }) => `${queryId} Q0 ${id} ${rank} ${score} ${tag}\n`)
    .join('');
}

/** `text` as one POSIX shell word: single-quoted, a `'` written as `'\''`. */
export const shellQuote = (text) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The curl command that POSTs `body` (the JSON the page sent) to `url`. With a key, the
 * Authorization header reads it from $IRSERVE_API_KEY, so the key itself is never copied.
 */
export function curlCommand(url, body, { withKey }) {
  const lines = [
    `curl -sS -X POST ${shellQuote(url)}`,
    `-H 'Content-Type: application/json'`,
    ...(withKey ? [`-H "Authorization: Bearer $IRSERVE_API_KEY"`] : []),
    `--data-raw ${shellQuote(JSON.stringify(body))}`,
  ];
  return lines.join(' \\\n  ');
}

/** Offers `text` as a file download named `name`. */
export function download(name, text) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

/** Puts `text` on the clipboard; false where the page may not (a plain-http remote origin). */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Wires a pane's "TREC run" and "curl" buttons: `last()` is the pane's last answer
 * (`{ request, ranked }`), `queryId()` the chosen query id (`1` when none is chosen).
 */
export function wireExport(root, { last, queryId, hasKey }) {
  const curlBox = root.querySelector('.curl');
  root.querySelector('.export-run').addEventListener('click', () => {
    const run = last();
    if (!run) return;
    const id = queryId() || '1';
    download(`irserve-${root.id}-${id}.trec`, trecRun(run.ranked, { queryId: id, ...run.request }));
  });
  root.querySelector('.copy-curl').addEventListener('click', async () => {
    const run = last();
    if (!run) return;
    const url = new URL('/pipeline', location.href).href;
    const command = curlCommand(url, pipelineBody(run.request), { withKey: hasKey() });
    curlBox.querySelector('code').textContent = command;
    curlBox.querySelector('.copied').textContent = (await copyText(command))
      ? 'copied to the clipboard'
      : 'select and copy';
    curlBox.hidden = false;
  });
}
