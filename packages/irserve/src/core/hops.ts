// Relay loop protection, shared by the transports and the relay clients (no client imported here).
/** Header that counts relay hops; a request that has crossed too many instances is refused. */
export const HOPS_HEADER = 'x-irserve-hops';
export const MAX_HOPS = 8;
