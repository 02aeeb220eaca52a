/**
 * Fastify, as the HTTP transport gets it at run time. Prebundled by `npm run build` like
 * `./zod.ts` (Fastify, avvio, find-my-way, light-my-request and their dependencies are some 135
 * CommonJS files, 47 of them semver's), sharing chunks with `./pino.ts`.
 */
export { default as Fastify, LogController } from 'fastify';
