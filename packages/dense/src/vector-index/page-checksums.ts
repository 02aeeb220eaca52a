/**
 * Page checksums of an index's rows file: the CRC-32 of every page (a fixed number of whole
 * rows, about 64 KiB), kept in a small file beside it (`<rows file>.crc32`, little-endian
 * uint32s) and listed in the manifest with its sha256. A service that pages the rows reads
 * only that table at start and checks each page as it reads it, instead of hashing the whole
 * rows file first; a service that loads the rows into memory still checks their sha256.
 */
import { crc32 } from 'node:zlib';

/** Bytes of a page of rows: whole rows, about 64 KiB (one row when a row is larger). */
export function pageBytesFor(rowBytes: number, target = 64 * 1024): number {
  return Math.max(1, Math.floor(target / rowBytes)) * rowBytes;
}

/** The page-checksum file of rows file `name`. */
export function pageChecksumsFile(name: string): string {
  return `${name}.crc32`;
}

/** Pages of a file of `bytes` in pages of `pageBytes` (the last may be shorter). */
export function pageCount(bytes: number, pageBytes: number): number {
  return Math.ceil(bytes / pageBytes);
}

/** Computes the page CRCs of bytes handed in order, in pieces of any size. */
export class PageChecksummer {
  readonly pageBytes: number;
  #crcs: number[] = [];
  #crc = 0;
  #filled = 0;

  constructor(pageBytes: number) {
    this.pageBytes = pageBytes;
  }

  update(data: Uint8Array): void {
    for (let at = 0; at < data.byteLength;) {
      const n = Math.min(data.byteLength - at, this.pageBytes - this.#filled);
      this.#crc = crc32(data.subarray(at, at + n), this.#crc);
      this.#filled += n;
      at += n;
      if (this.#filled === this.pageBytes) this.#endPage();
    }
  }

  /** The CRC of every page, the last (partial) one included. */
  finish(): Uint32Array {
    if (this.#filled > 0) this.#endPage();
    return Uint32Array.from(this.#crcs);
  }

  #endPage(): void {
    this.#crcs.push(this.#crc >>> 0);
    this.#crc = 0;
    this.#filled = 0;
  }
}

/** Page `page`'s CRC-32 check, shared by every paged read. */
export function pageMatches(bytes: Uint8Array, expected: number): boolean {
  return crc32(bytes) >>> 0 === expected;
}
