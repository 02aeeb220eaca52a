/**
 * pino, as the logger factories get it at run time. Prebundled by `npm run build` like
 * `./zod.ts`; pino-pretty stays a package of its own, loaded only on a terminal.
 */
export { pino } from 'pino';
