// Writes an `.npz` (what `np.savez` writes: a zip of `.npy` members, stored, not compressed)
// member by member, each member's bytes streamed in blocks: the local header is written with
// the member, its CRC-32 and sizes patched in once the member is done, then the central
// directory closes the archive. Members stay under 4 GiB (no ZIP64 records).
import { open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
/** 1980-01-01 in DOS date format (numpy writes the time of saving; no reader looks). */
const DOS_DATE = 0x21;

/** An archive at `path`: `member(name, blocks)` appends a member, `close()` finishes it. */
export async function npzWriter(path) {
  const handle = await open(path, 'w');
  const members = [];
  let offset = 0;
  const write = async (bytes, position) => {
    for (let at = 0; at < bytes.byteLength;) {
      const { bytesWritten } = await handle.write(bytes, at, bytes.byteLength - at, position);
      at += bytesWritten;
      if (position !== undefined) position += bytesWritten;
    }
  };
  return {
    /** Appends member `name` (`features.npy`, ...) made of the byte arrays `blocks` yields. */
    async member(name, blocks) {
      const header = localHeader(name, 0, 0);
      const start = offset;
      await write(header, start);
      offset += header.byteLength;
      let crc = 0;
      let size = 0;
      for await (const block of blocks) {
        crc = crc32(block, crc);
        size += block.byteLength;
        await write(block, offset);
        offset += block.byteLength;
      }
      if (size >= 2 ** 32) throw new Error(`${path}: member ${name} passes 4 GiB`);
      await write(localHeader(name, crc >>> 0, size), start);
      members.push({ name, crc: crc >>> 0, size, start });
    },
    /** Writes the central directory and closes the file. */
    async close() {
      const directory = members.map((m) => centralEntry(m));
      const bytes = directory.reduce((sum, entry) => sum + entry.byteLength, 0);
      const end = Buffer.alloc(22);
      end.writeUInt32LE(END, 0);
      end.writeUInt16LE(members.length, 8);
      end.writeUInt16LE(members.length, 10);
      end.writeUInt32LE(bytes, 12);
      end.writeUInt32LE(offset, 16);
      await write(Buffer.concat([...directory, end]), offset);
      await handle.close();
    },
  };
}

/**
 * The fields a local header and a central entry share (version needed, flags, method, time,
 * date, CRC-32, sizes, name length), from `at`: 4 in a local header, 6 in a central entry.
 */
function sharedFields(record, at, { name, crc, size }) {
  record.writeUInt16LE(20, at);
  record.writeUInt16LE(DOS_DATE, at + 8);
  record.writeUInt32LE(crc, at + 10);
  record.writeUInt32LE(size, at + 14);
  record.writeUInt32LE(size, at + 18);
  record.writeUInt16LE(Buffer.byteLength(name), at + 22);
}

function localHeader(name, crc, size) {
  const header = Buffer.alloc(30 + Buffer.byteLength(name));
  header.writeUInt32LE(LOCAL, 0);
  sharedFields(header, 4, { name, crc, size });
  header.write(name, 30);
  return header;
}

function centralEntry(member) {
  const entry = Buffer.alloc(46 + Buffer.byteLength(member.name));
  entry.writeUInt32LE(CENTRAL, 0);
  entry.writeUInt16LE(20, 4);
  sharedFields(entry, 6, member);
  entry.writeUInt32LE(member.start, 42);
  entry.write(member.name, 46);
  return entry;
}
