# irserve in a container: `docker build -t irserve .` then
#   docker run --rm -p 8000:8000 irserve                      (the bundled quickstart config)
#   docker run --rm -p 8000:8000 -v "$PWD/my:/data" -e IRSERVE_API_KEY=secret irserve /data/config.json --host 0.0.0.0
# Models named by Hugging Face Hub id: bake them in with `irserve pull` (docs/models.md, "Models
# in a container image"), or mount a cache: -v hf-cache:/home/node/.cache/huggingface
# See docs/install.md.

# --- build: install every workspace, compile TypeScript, then drop the dev dependencies ---
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY . .
# `npm ci` runs the root `prepare` script, which builds every package's dist/. The image's npm 10
# ignores the `allowScripts` policy of package.json, so onnxruntime-node's download of CUDA
# libraries is turned off here (docs/install.md, "Offline-safe installs").
ENV ONNXRUNTIME_NODE_INSTALL=skip
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

# --- run: the compiled packages and production dependencies only, as a non-root user ---
FROM node:22-bookworm-slim
# tini is PID 1: it forwards SIGTERM to node (its direct child), which drains in-flight
# requests and exits 0; it also reaps zombies. No shell sits in between.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/packages ./packages
COPY --from=build /src/examples/quickstart ./examples/quickstart
# Indexes and offset maps are written beside the config (or to cache_dir): give the user the
# example folder; mount your own data where the user `node` can write.
RUN chown -R node:node /app/examples
USER node
EXPOSE 8000 50051
# /ping never needs the API key. The port is the default 8000: adjust with --health-cmd when
# you pass another --port.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8000/ping').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "packages/irserve/bin/irserve.js"]
CMD ["examples/quickstart/config.json", "--host", "0.0.0.0"]
