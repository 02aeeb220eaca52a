import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { IrserveError } from '../../../errors.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** The package folder (this file is `<package>/{src,dist}/transports/http/routes/ui.*`). */
const packageDir = () => fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Compiled modules the page imports: the pipeline parser, so it checks syntax as you type with
 * the server's own grammar, the ranking of a score map (ties broken as the server's cuts break
 * them), `irserve eval`'s qrels reader and measures, and `irserve experiment`'s analysis and
 * report (the A-against-B view and experiment reports). None touches Node APIs.
 */
export const SHARED_MODULES = [
  'core/ranked-list.js',
  'engines/bm25/stopwords.js',
  'errors.js',
  'pipeline/ast.js',
  'pipeline/lexer.js',
  'pipeline/parser.js',
  'pipeline/syntax-error.js',
  'eval/files.js',
  'eval/measure-name.js',
  'eval/measures.js',
  'eval/metrics.js',
  'experiment/analyse.js',
  'experiment/report-html.js',
  'experiment/special-functions.js',
  'experiment/stats.js',
  'experiment/svg-charts.js',
  'experiment/table.js',
  'util/seeded-random.js',
];

interface StaticFile {
  path: string;
  type: string;
}

/** URL path under /ui → file, listed once: nothing outside this list can be served. */
async function listFiles(): Promise<Map<string, StaticFile>> {
  const root = packageDir();
  const files = new Map<string, StaticFile>();
  for (const name of await readdir(join(root, 'ui'))) {
    const type = TYPES[extname(name)];
    if (type) files.set(name, { path: join(root, 'ui', name), type });
  }
  for (const module of SHARED_MODULES)
    files.set(`lib/${module}`, { path: join(root, 'dist', module), type: TYPES['.js']! });
  return files;
}

/**
 * `GET /ui/` and its static files (the playground, docs/playground.md). The files hold no data
 * and are served without the bearer check, so a browser can load the page; every call the page
 * makes carries the key the user types in, like any client.
 */
export function uiRoutes(server: FastifyInstance): void {
  let files: Promise<Map<string, StaticFile>> | undefined;
  const serve = async (name: string) => {
    files ??= listFiles();
    const file = (await files).get(name);
    if (!file) throw new IrserveError('ERR_NOT_FOUND', `no file /ui/${name}`);
    const body = await readFile(file.path).catch(() => {
      throw new IrserveError('ERR_NOT_FOUND', `/ui/${name} is missing (run npm run build)`);
    });
    return { body, type: file.type };
  };
  const send = async (reply: FastifyReply, name: string) => {
    const { body, type } = await serve(name);
    return reply.header('content-type', type).header('cache-control', 'no-cache').send(body);
  };
  // `/ui` and `/ui/` are one route (ignoreTrailingSlash); the page's relative URLs need the slash.
  server.get('/ui', async (request, reply) =>
    request.url.split('?')[0] === '/ui' ? reply.redirect('/ui/', 302) : send(reply, 'index.html'),
  );
  server.get('/ui/*', async (request, reply) =>
    send(reply, (request.params as { '*': string })['*'] || 'index.html'),
  );
}
