/**
 * Loads `proto/routir.proto` at run time (no generated code to keep in step with the file).
 * Loaded per server or client, never at import, so nothing runs when the module is imported.
 */
import { fileURLToPath } from 'node:url';
import {
  loadPackageDefinition,
  type GrpcObject,
  type ServiceClientConstructor,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import { load } from '@grpc/proto-loader';

/** The proto file shipped in the package (`proto/` beside `src/` and `dist/`). */
export const PROTO_PATH = fileURLToPath(new URL('../../../proto/routir.proto', import.meta.url));

/** Fully qualified service name, as RoutIR serves it. */
export const SERVICE_NAME = 'routir.v1.Routir';

/** RoutIR's default message size limit (`--grpc-max-message-mb`). */
export const DEFAULT_MAX_MESSAGE_MB = 64;

export interface RoutirProto {
  /** What `server.addService` takes. */
  service: ServiceDefinition;
  /** The generic client class of the service. */
  Client: ServiceClientConstructor;
}

/**
 * Loader options: field names as in the proto (snake_case, like RoutIR's JSON), unset optional
 * fields left out (so "absent" and "zero" differ), oneofs named, 64-bit numbers as JS numbers.
 */
const LOADER_OPTIONS = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
} as const;

/** Loads and resolves the service definition. */
export async function loadRoutirProto(): Promise<RoutirProto> {
  const definition = await load(PROTO_PATH, LOADER_OPTIONS);
  const grpcObject = loadPackageDefinition(definition);
  const v1 = (grpcObject.routir as GrpcObject).v1 as GrpcObject;
  const Client = v1.Routir as ServiceClientConstructor;
  return { service: Client.service, Client };
}

/** Channel options that set both message size limits, in MiB. */
export function messageSizeOptions(maxMessageMb: number): Record<string, number> {
  const bytes = Math.floor(maxMessageMb * 1024 * 1024);
  return {
    'grpc.max_receive_message_length': bytes,
    'grpc.max_send_message_length': bytes,
  };
}
