/**
 * The engines of irserve's own extra packages, by package: when a config names one and the
 * package is not installed, the error says what to install. Kept equal to the
 * `irserve.engineNames` of each package's package.json (a test compares them).
 */
export const OFFICIAL_EXTRAS: Readonly<Record<string, readonly string[]>> = {
  '@irserve/backends': ['OpenSearch', 'Elasticsearch', 'Postgres', 'Manticore', 'Sphinx'],
  '@irserve/dense': ['Dense', 'SentenceTransformerEngine'],
  '@irserve/gpu': ['GgufEmbedding', 'GgufReranker'],
  '@irserve/onnx': ['CrossEncoderReranker', 'MT5Reranker', 'MonoT5Reranker'],
  '@irserve/plaidx': ['PLAIDX'],
  '@irserve/sparse': ['LSR', 'Sparse'],
};

/** The official extra package that defines an engine of that name, if one does. */
export function officialExtraOf(engine: string): string | undefined {
  return Object.keys(OFFICIAL_EXTRAS).find((name) => OFFICIAL_EXTRAS[name]!.includes(engine));
}
