export const USAGE = `irserve: a retrieval server (search, rerank, fusion, pipelines, content)

Usage:
  irserve <config.json> [--port 8000] [--host 127.0.0.1] [--api_key KEY] [--log-level info]
  irserve warmup <config.json>     build every offset map and index ahead of serving
  irserve eval <config.json> ...   evaluate a pipeline on queries and qrels (irserve eval --help)
  irserve --print-config-schema    print the JSON Schema of the config file
  irserve --help | --version

Options:
  --port <int>        port to listen on (default 8000)
  --host <addr>       address to bind (default 127.0.0.1; 0.0.0.0 for every interface)
  --api_key <token>   require "Authorization: Bearer <token>" (prefer IRSERVE_API_KEY: argv is
                      visible in process listings)
  --log-level <lvl>   fatal, error, warn, info (default), debug, trace, silent

Environment:
  IRSERVE_API_KEY     the bearer token (ROUTIR_API_KEY is accepted too)

Docs: docs/ in the repository (configuration, errors, pipelines, collections, BM25).`;
