/** `@irserve/backends`: irserve engines over existing search engines: OpenSearch / Elasticsearch, PostgreSQL (full-text and pgvector), Manticore / Sphinx. */
export { engines } from './engines.js';
export { Postgres } from './postgres/postgres.js';
export { postgresConfigSchema, type PostgresConfig } from './postgres/config.js';
export { Manticore, Sphinx } from './sphinx/manticore.js';
export { manticoreConfigSchema, type ManticoreConfig } from './sphinx/config.js';
export { OpenSearch, Elasticsearch } from './search-cluster/search-cluster.js';
export { clusterConfigSchema, type ClusterConfig } from './search-cluster/config.js';
export { BackendLink, type LinkState } from './common/backend-link.js';
export { upstreamError, redactSecrets } from './common/upstream-error.js';
