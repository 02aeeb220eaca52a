"""The HTTP calls RoutIR's Python client (routir.client RestTransport) makes, replayed with the
standard library against an irserve server, with the checks its code relies on.

RoutIR's RestTransport posts JSON with `Authorization: Bearer <key>`, reads 2xx bodies as JSON,
raises on 4xx with the body's `error` field, retries 5xx, and for `auto` transport reads
`grpc_port` from /avail. Usage: python3 routir_wire.py <base_url> <api_key>
"""
import json
import sys
import urllib.error
import urllib.request

BASE, KEY = sys.argv[1].rstrip("/"), sys.argv[2]


def call(method, path, payload=None, key=KEY):
    headers = {"Content-Type": "application/json"} if payload is not None else {}
    if key:
        headers["Authorization"] = "Bearer " + key
    data = json.dumps(payload).encode() if payload is not None else None
    request = urllib.request.Request(BASE + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def check(condition, what):
    if not condition:
        raise SystemExit("FAILED: " + what)


status, body = call("GET", "/ping", key=None)
check(status == 200 and body == {"status": "pong"}, "ping without a key")

status, body = call("GET", "/avail")
check(status == 200, "avail")
for role in ("search", "score", "fuse", "decompose_query"):
    check(isinstance(body[role], list), "avail lists " + role)
check("grpc_port" in body and isinstance(body["grpc_port"], int), "avail advertises grpc_port")
check(body["collection"]["docs"]["default"] == "text", "avail collection shape")

status, body = call("POST", "/search", {"service": "const", "query": "neural retrieval", "limit": 3})
check(status == 200 and len(body["scores"]) == 3, "search scores")
for key in ("cached", "processed", "query", "service", "timestamp"):
    check(key in body, "search envelope has " + key)

status, body = call("POST", "/score", {"service": "overlap", "query": "wing", "passages": ["wing", "x"]})
check(status == 200 and len(body["scores"]) == 2 and body["meta"]["n_passages"] == 2, "score")

status, body = call("POST", "/content", {"collection": "docs", "id": "d1"})
check(status == 200 and body["text"] == "wing flutter at speed", "content text")
check(body["id"] == "d1", "content echoes id (RoutIR's Reranker reads resp['id'])")

status, body = call("POST", "/pipeline", {"pipeline": "{const, const}RRF%2", "query": "q", "runtime_kwargs": {}})
check(status == 200 and len(body["scores"]) == 2 and "timestamp" in body, "pipeline")

status, body = call("POST", "/search", {"service": "nope", "query": "q"})
check(status == 400 and "nope" in body["error"], "unknown service: 400 with an error field")

status, body = call("POST", "/search", {"service": "const", "query": "q"}, key="wrong")
check(status == 401 and "error" in body, "wrong key: 401")

print("ok")
