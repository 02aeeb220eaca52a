export { engines } from './engines.js';
