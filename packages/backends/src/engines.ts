/**
 * The engines this extra registers when installed beside irserve. The core finds this module
 * through the `irserve.engines` field of the package's package.json.
 */
import type { EngineClass } from 'irserve/plugin';
import { Postgres } from './postgres/postgres.js';
import { Elasticsearch, OpenSearch } from './search-cluster/search-cluster.js';
import { Manticore, Sphinx } from './sphinx/manticore.js';

export const engines: EngineClass[] = [OpenSearch, Elasticsearch, Postgres, Manticore, Sphinx];
