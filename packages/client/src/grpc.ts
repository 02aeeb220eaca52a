/**
 * `@irserve/client/grpc`: the gRPC client (Node only; the main entry stays browser-safe).
 *
 * @example
 * import { GrpcClient } from '@irserve/client/grpc';
 * const client = new GrpcClient({ target: '127.0.0.1:50051' });
 */
export { GrpcClient, type GrpcClientOptions } from './grpc/grpc-client.js';
