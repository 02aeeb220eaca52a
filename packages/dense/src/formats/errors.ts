/** The format error every extra throws (one class, so `instanceof` holds across packages). */
export { FormatError } from 'irserve/plugin';
