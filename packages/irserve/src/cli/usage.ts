export const USAGE = `irserve: a retrieval server (search, rerank, fusion, pipelines, content)

Usage:
  irserve <config.json> [--port 8000] [--host 127.0.0.1] [--api_key KEY] [--log-level info]
          [--grpc] [--grpc_port 50051] [--grpc_max_message_mb 64]
  irserve warmup <config.json>     build every offset map and index ahead of serving
  irserve eval <config.json> ...   evaluate a pipeline on queries and qrels (irserve eval --help)
  irserve mcp <config.json>        serve the config as an MCP server over stdio (docs/mcp.md)
  irserve --print-config-schema    print the JSON Schema of the config file
  irserve --help | --version

Options:
  --port <int>        port to listen on (default 8000)
  --host <addr>       address to bind (default 127.0.0.1; 0.0.0.0 for every interface)
  --api_key <token>   require "Authorization: Bearer <token>" (prefer IRSERVE_API_KEY: argv is
                      visible in process listings)
  --log-level <lvl>   fatal, error, warn, info (default), debug, trace, silent
  --grpc              also serve gRPC (routir.v1.Routir, RoutIR-compatible) on the same host
  --grpc_port <int>   gRPC port (default 50051; implies --grpc); /avail advertises it
  --grpc_max_message_mb <n>  largest gRPC message sent or received (default 64)

Environment:
  IRSERVE_API_KEY     the bearer token (ROUTIR_API_KEY is accepted too)

Docs: docs/ in the repository (configuration, errors, pipelines, collections, BM25, MCP,
compat APIs).`;
