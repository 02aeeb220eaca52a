/** `@irserve/plaidx`: ColBERT / PLAID-X late-interaction retrieval for irserve. */
export { engines } from './engines.js';
