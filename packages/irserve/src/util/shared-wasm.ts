/**
 * The slice of the WebAssembly API the SIMD kernels of the engine packages use (`irserve/wasm`: a
 * light import for their worker threads) (@types/node 20
 * does not declare it): a fixed-size shared memory, and a kernel module instantiated over it.
 * The kernels import their memory as `env.memory`, shared, so several threads can read one
 * copy of the data.
 */

export interface SharedMemory {
  buffer: ArrayBuffer | SharedArrayBuffer;
}

interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => SharedMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

const PAGE = 65536;

function api(): WasmApi {
  return (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
}

/** A shared memory of at least `bytes` bytes (whole 64 KiB pages, at least one); it never grows. */
export function sharedMemory(bytes: number): SharedMemory {
  const pages = Math.max(1, Math.ceil(bytes / PAGE));
  return new (api().Memory)({ initial: pages, maximum: pages, shared: true });
}

/** The exports of the compiled kernel `bytes`, instantiated over `memory`. */
export function instantiate<T>(bytes: Uint8Array, memory: SharedMemory): T {
  const wasm = api();
  return new wasm.Instance(new wasm.Module(bytes), { env: { memory } }).exports as T;
}
