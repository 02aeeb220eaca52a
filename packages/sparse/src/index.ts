/** `@irserve/sparse`: Learned sparse retrieval (SPLADE) for irserve: an impact index builder and the LSR engine. */
export { engines } from './engines.js';
