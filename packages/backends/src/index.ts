/** `@irserve/backends`: irserve engines over existing search engines: OpenSearch / Elasticsearch, PostgreSQL (full-text and pgvector), Manticore / Sphinx. */
export { engines } from './engines.js';
