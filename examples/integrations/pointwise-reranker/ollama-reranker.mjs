/* global AbortController, AbortSignal */
// A pointwise reranker (the `score` role) written against Ollama's native `/api/generate` API:
// each (query, passage) pair is judged on its own with a yes/no relevance prompt, and the score
// is P(yes) from the answer's log-probabilities when Ollama returns them, else 1 for "yes" and 0
// for "no". Load it with `"file_imports": ["ollama-reranker.mjs"]` and a service whose engine is
// "OllamaPointwiseReranker".
//
// Plain JavaScript on purpose: a `.mjs` plugin is imported by Node itself, so the IrserveError it
// throws is the server's own class and keeps its code (502 for a failing Ollama, 504 for a slow
// one); see examples/integrations/README.md.
import { IrserveError, badRequest } from 'irserve/plugin';

const DEFAULT_PROMPT =
  'Judge whether the passage answers or is relevant to the query. ' +
  'Answer with one word, "yes" or "no".\n\nQuery: {query}\n\nPassage: {passage}\n\nRelevant:';

const KNOWN_KEYS = [
  'model',
  'url',
  'prompt',
  'concurrency',
  'timeout',
  'max_passage_chars',
  'logprobs',
  'options',
  'keep_alive',
];

/**
 * Checks the service's `config` once, at start-up; throws one error naming every bad field.
 * @param {Record<string, unknown>} config
 */
export function parseRerankerConfig(config) {
  const problems = [];
  const problem = (field, message) => problems.push(`config.${field}: ${message}`);
  for (const key of Object.keys(config))
    if (!KNOWN_KEYS.includes(key)) problem(key, `unknown key (known: ${KNOWN_KEYS.join(', ')})`);
  const { model, url = 'http://127.0.0.1:11434', prompt = DEFAULT_PROMPT } = config;
  if (typeof model !== 'string' || model === '')
    problem('model', 'required: the Ollama model that judges relevance, e.g. "qwen2.5:1.5b"');
  if (typeof url !== 'string' || !URL.canParse(url)) problem('url', 'must be an http(s) URL');
  if (typeof prompt !== 'string' || !prompt.includes('{query}') || !prompt.includes('{passage}'))
    problem('prompt', 'must be a string with {query} and {passage} placeholders');
  const integer = (key, fallback, max) => {
    const value = config[key] ?? fallback;
    if (Number.isInteger(value) && value >= 1 && value <= max) return value;
    problem(key, `must be an integer from 1 to ${max}`);
    return fallback;
  };
  const timeout = config.timeout ?? 60;
  if (typeof timeout !== 'number' || !(timeout > 0)) problem('timeout', 'must be seconds > 0');
  const options = config.options ?? {};
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    problem('options', 'must be an object of Ollama model options');
  const logprobs = config.logprobs ?? true;
  if (typeof logprobs !== 'boolean') problem('logprobs', 'must be true or false');
  const settings = {
    model,
    endpoint: `${String(url).replace(/\/+$/, '')}/api/generate`,
    prompt,
    concurrency: integer('concurrency', 4, 64),
    timeoutMs: Number(timeout) * 1000,
    maxPassageChars: integer('max_passage_chars', 4000, 1_000_000),
    logprobs,
    // Deterministic one-token answers: the score must not change between two identical calls.
    options: { temperature: 0, num_predict: 1, ...options },
    keepAlive: config.keep_alive,
  };
  if (problems.length > 0) throw new Error(problems.join('; '));
  return settings;
}

export class OllamaPointwiseReranker {
  /** @param {{ name: string, config: Record<string, unknown> }} init */
  constructor({ name, config }) {
    this.name = name;
    this.settings = parseRerankerConfig(config);
    // Aborted by close(): in-flight calls stop instead of holding the shutdown.
    this.closing = new AbortController();
  }

  /**
   * One score per passage, in passage order. All pairs of the batch share one pool of
   * `concurrency` calls; the first failure cancels the rest and fails the batch.
   * @param {{ query: string, passages: (string | Uint8Array[])[] }[]} requests
   * @returns {Promise<number[][]>}
   */
  async scoreBatch(requests) {
    const pairs = requests.flatMap(({ query, passages }, r) =>
      passages.map((passage, p) => {
        if (typeof passage !== 'string')
          throw badRequest(`passages[${p}]: ${this.name} judges text passages`);
        return { r, p, query, passage };
      }),
    );
    const scores = requests.map(({ passages }) => new Array(passages.length).fill(0));
    const batch = new AbortController();
    const signal = AbortSignal.any([batch.signal, this.closing.signal]);
    await runPool(pairs.length, this.settings.concurrency, async (i) => {
      const { r, p, query, passage } = pairs[i];
      try {
        scores[r][p] = await this.judge(query, passage, signal);
      } catch (error) {
        batch.abort(error);
        throw error;
      }
    });
    return scores;
  }

  /** Asks Ollama about one pair; resolves with a score in [0, 1]. */
  async judge(query, passage, signal) {
    const { model, prompt, maxPassageChars, logprobs, options, keepAlive } = this.settings;
    const body = {
      model,
      // One pass with a replacer function: a "{passage}" or "$&" inside the query stays as it is.
      prompt: prompt.replace(/\{(query|passage)\}/g, (_, key) =>
        key === 'query' ? query : passage.slice(0, maxPassageChars),
      ),
      stream: false,
      options,
      ...(logprobs && { logprobs: true, top_logprobs: 5 }),
      ...(keepAlive !== undefined && { keep_alive: keepAlive }),
    };
    const answer = await this.generate(body, signal);
    return scoreAnswer(answer, `${this.name}: Ollama model "${model}"`);
  }

  /** POSTs to /api/generate; every failure becomes a 502 or 504 that names the service. */
  async generate(body, signal) {
    const { endpoint, timeoutMs } = this.settings;
    const timeout = AbortSignal.timeout(timeoutMs);
    const where = `${this.name}: Ollama at ${endpoint}`;
    let response;
    let text;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, timeout]),
      });
      text = await response.text();
    } catch (error) {
      if (timeout.aborted)
        throw new IrserveError(
          'ERR_UPSTREAM_TIMEOUT',
          `${where} did not answer in ${timeoutMs / 1000} s`,
        );
      if (signal.aborted) throw signal.reason;
      const reason = error.cause?.code ?? error.cause?.message ?? error.message;
      throw new IrserveError('ERR_UPSTREAM', `${where} cannot be reached (${reason})`, {
        cause: error,
      });
    }
    return parseGenerateResponse(response.status, text, where);
  }

  async close() {
    this.closing.abort(new Error(`service "${this.name}" closed`));
  }
}

/** Ollama's JSON answer, or a 502 naming what is wrong with it. */
function parseGenerateResponse(status, text, where) {
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (status < 200 || status >= 300) {
    const detail = typeof json?.error === 'string' ? json.error : text.slice(0, 200);
    throw new IrserveError('ERR_UPSTREAM', `${where} answered HTTP ${status}: ${detail}`);
  }
  if (typeof json !== 'object' || json === null)
    throw new IrserveError(
      'ERR_UPSTREAM',
      `${where} answered something that is not JSON: ${text.slice(0, 100)}`,
    );
  if (typeof json.error === 'string')
    throw new IrserveError('ERR_UPSTREAM', `${where} answered an error: ${json.error}`);
  if (typeof json.response !== 'string')
    throw new IrserveError('ERR_UPSTREAM', `${where} answered JSON without a "response" string`);
  return json;
}

/**
 * P(yes) / (P(yes) + P(no)) over the first token's alternatives when log-probabilities are
 * there (a graded score ranks better than a 0/1 one); else 1 for "yes" and 0 for "no".
 */
export function scoreAnswer(answer, who) {
  const first = Array.isArray(answer.logprobs) ? answer.logprobs[0] : undefined;
  if (first && Array.isArray(first.top_logprobs)) {
    let yes = 0;
    let no = 0;
    for (const { token, logprob } of [first, ...first.top_logprobs]) {
      if (typeof token !== 'string' || typeof logprob !== 'number') continue;
      const word = token.trim().toLowerCase();
      // The chosen token also appears among the alternatives: count each once.
      if (word === 'yes') yes = Math.max(yes, Math.exp(logprob));
      if (word === 'no') no = Math.max(no, Math.exp(logprob));
    }
    if (yes + no > 0) return yes / (yes + no);
  }
  const word = /^\W*(yes|no)\b/i.exec(answer.response)?.[1]?.toLowerCase();
  if (word === 'yes') return 1;
  if (word === 'no') return 0;
  throw new IrserveError(
    'ERR_UPSTREAM',
    `${who} answered ${JSON.stringify(answer.response.slice(0, 50))}, expected "yes" or "no"`,
  );
}

/** Runs task(0 .. count-1) with at most `concurrency` at once; rejects with the first failure. */
async function runPool(count, concurrency, task) {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  const results = await Promise.allSettled(
    Array.from({ length: Math.min(concurrency, count) }, worker),
  );
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}
