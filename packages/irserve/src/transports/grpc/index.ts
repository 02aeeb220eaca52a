export { startGrpcServer, type GrpcServerHandle, type GrpcServerOptions } from './server.js';
export { DEFAULT_MAX_MESSAGE_MB, PROTO_PATH, SERVICE_NAME, loadRoutirProto } from './proto.js';
