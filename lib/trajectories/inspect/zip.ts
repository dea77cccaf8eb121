import fs from "node:fs";
import zlib from "node:zlib";
import { Decompress } from "fzstd";

/**
 * A zip archive read from disk one entry at a time (Inspect's `.eval` logs are zips): the central
 * directory is read from the end of the file, and each entry is read and inflated on its own, so
 * a log of any size costs the memory of its largest entry, not of the file. Deflate (method 8),
 * stored (0) and zstd (93, what current Inspect versions write) entries are read; ZIP64 sizes and
 * offsets are understood.
 */

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  crc32: number;
  /** Offset of the entry's local header. */
  offset: number;
}

/** A file that is not a zip, or an entry that cannot be read. */
export class ZipError extends Error {}

const EOCD = 0x06054b50;
const EOCD64 = 0x06064b50;
const EOCD64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** 1980-01-01 00:00, DOS time and date: the entries' times say nothing (an export is the same whenever it is written). */
const DOS_DATE = (((0 << 9) | (1 << 5) | 1) << 16) >>> 0;

function readAt(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return got === length ? buf : buf.subarray(0, got);
}

/** An open archive: its entries, and a reader for each. Close it when done. */
export class ZipReader {
  readonly entries: ZipEntry[];
  readonly size: number;
  private constructor(
    private readonly fd: number,
    size: number,
    entries: ZipEntry[],
  ) {
    this.size = size;
    this.entries = entries;
  }

  /** Opens `file` and reads its central directory; throws ZipError when it is not a zip. */
  static open(file: string): ZipReader {
    const fd = fs.openSync(file, "r");
    try {
      const size = fs.fstatSync(fd).size;
      return new ZipReader(fd, size, readDirectory(fd, size));
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
  }

  entry(name: string): ZipEntry | undefined {
    return this.entries.find((e) => e.name === name);
  }

  /** The entry's content, inflated and its CRC checked. */
  read(e: ZipEntry): Buffer {
    const local = readAt(this.fd, e.offset, 30);
    if (local.length < 30 || local.readUInt32LE(0) !== LOCAL) throw new ZipError(`entry ${e.name}: no local header at offset ${e.offset}`);
    const start = e.offset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    const raw = readAt(this.fd, start, e.compressedSize);
    if (raw.length < e.compressedSize) throw new ZipError(`entry ${e.name}: truncated (${raw.length} of ${e.compressedSize} bytes)`);
    let out: Buffer;
    try {
      if (e.method === 0) out = raw;
      else if (e.method === 8) out = zlib.inflateRawSync(raw);
      else if (e.method === 93) out = zstdDecompress(raw);
      else throw new ZipError(`entry ${e.name}: compression method ${e.method} is not supported (expected stored, deflate or zstd)`);
    } catch (err) {
      if (err instanceof ZipError) throw err;
      throw new ZipError(`entry ${e.name}: cannot decompress: ${(err as Error).message}`);
    }
    if (out.length !== e.size) throw new ZipError(`entry ${e.name}: ${out.length} bytes after decompressing, the directory says ${e.size}`);
    if (zlib.crc32(out) >>> 0 !== e.crc32) throw new ZipError(`entry ${e.name}: CRC mismatch`);
    return out;
  }

  readText(e: ZipEntry): string {
    return this.read(e).toString("utf8");
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/** zstd frames of unknown content size are decoded in the streaming decoder (fzstd's one-shot decoder needs the size). */
function zstdDecompress(raw: Buffer): Buffer {
  const parts: Uint8Array[] = [];
  const d = new Decompress((chunk) => void parts.push(chunk));
  d.push(raw, true);
  return Buffer.concat(parts);
}

function readDirectory(fd: number, size: number): ZipEntry[] {
  // The end record is in the last 22 bytes plus at most 65,535 of comment.
  const tailLen = Math.min(size, 22 + 65535);
  const tail = readAt(fd, size - tailLen, tailLen);
  let at = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD) {
      at = i;
      break;
    }
  }
  if (at < 0) throw new ZipError("not a zip archive (no end of central directory record)");
  let count = tail.readUInt16LE(at + 10);
  let dirSize = tail.readUInt32LE(at + 12);
  let dirOffset = tail.readUInt32LE(at + 16);
  if (count === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) {
    const loc = at - 20;
    if (loc < 0 || tail.readUInt32LE(loc) !== EOCD64_LOCATOR) throw new ZipError("ZIP64 archive without its locator");
    const e64 = readAt(fd, Number(tail.readBigUInt64LE(loc + 8)), 56);
    if (e64.readUInt32LE(0) !== EOCD64) throw new ZipError("ZIP64 end record missing");
    count = Number(e64.readBigUInt64LE(32));
    dirSize = Number(e64.readBigUInt64LE(40));
    dirOffset = Number(e64.readBigUInt64LE(48));
  }
  if (dirOffset + dirSize > size) throw new ZipError("the central directory lies past the end of the file (truncated archive)");
  const dir = readAt(fd, dirOffset, dirSize);
  const entries: ZipEntry[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > dir.length || dir.readUInt32LE(p) !== CENTRAL) throw new ZipError(`central directory entry ${i} is damaged`);
    const method = dir.readUInt16LE(p + 10);
    const crc32 = dir.readUInt32LE(p + 16);
    let compressedSize = dir.readUInt32LE(p + 20);
    let sizeU = dir.readUInt32LE(p + 24);
    const nameLen = dir.readUInt16LE(p + 28);
    const extraLen = dir.readUInt16LE(p + 30);
    const commentLen = dir.readUInt16LE(p + 32);
    let offset = dir.readUInt32LE(p + 42);
    const name = dir.toString("utf8", p + 46, p + 46 + nameLen);
    // ZIP64 extra field: the values that overflowed, in this order.
    let x = p + 46 + nameLen;
    const xEnd = x + extraLen;
    while (x + 4 <= xEnd) {
      const id = dir.readUInt16LE(x);
      const len = dir.readUInt16LE(x + 2);
      if (id === 0x0001) {
        let q = x + 4;
        if (sizeU === 0xffffffff) (sizeU = Number(dir.readBigUInt64LE(q))), (q += 8);
        if (compressedSize === 0xffffffff) (compressedSize = Number(dir.readBigUInt64LE(q))), (q += 8);
        if (offset === 0xffffffff) offset = Number(dir.readBigUInt64LE(q));
      }
      x += 4 + len;
    }
    entries.push({ name, method, compressedSize, size: sizeU, crc32, offset });
    p = xEnd + commentLen;
  }
  return entries;
}

/**
 * Writes a zip archive entry by entry to a file (deflated), so an export never holds more than
 * one entry. Entries past 4 GiB in all use ZIP64 records.
 */
export class ZipWriter {
  private readonly fd: number;
  private offset = 0;
  private readonly central: Buffer[] = [];
  private count = 0;

  constructor(file: string) {
    this.fd = fs.openSync(file, "w");
  }

  private write(b: Buffer): void {
    fs.writeSync(this.fd, b);
    this.offset += b.length;
  }

  add(name: string, content: string | Buffer): void {
    const data = typeof content === "string" ? Buffer.from(content, "utf8") : content;
    this.addPacked(name, data, 8, zlib.deflateRawSync(data));
  }

  /** Adds an entry compressed elsewhere with `method` (8 deflate, 93 zstd, 0 stored). */
  addPacked(name: string, data: Buffer, method: number, packed: Buffer): void {
    const crc = zlib.crc32(data) >>> 0;
    const nameBuf = Buffer.from(name, "utf8");
    const big = this.offset >= 0xffffffff || data.length >= 0xffffffff;
    const zip64 = big ? Buffer.alloc(4 + 24) : Buffer.alloc(0);
    if (big) {
      zip64.writeUInt16LE(1, 0);
      zip64.writeUInt16LE(24, 2);
      zip64.writeBigUInt64LE(BigInt(data.length), 4);
      zip64.writeBigUInt64LE(BigInt(packed.length), 12);
      zip64.writeBigUInt64LE(BigInt(this.offset), 20);
    }
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL, 0);
    local.writeUInt16LE(big ? 45 : 20, 4);
    local.writeUInt16LE(0x0800, 6); // names in UTF-8
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(DOS_DATE, 10);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(big ? 0xffffffff : packed.length, 18);
    local.writeUInt32LE(big ? 0xffffffff : data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    local.writeUInt16LE(big ? zip64.length : 0, 28);
    const at = this.offset;
    this.write(Buffer.concat([local, nameBuf, big ? zip64 : Buffer.alloc(0), packed]));
    const c = Buffer.alloc(46);
    c.writeUInt32LE(CENTRAL, 0);
    c.writeUInt16LE(big ? 45 : 20, 4);
    c.writeUInt16LE(big ? 45 : 20, 6);
    c.writeUInt16LE(0x0800, 8);
    c.writeUInt16LE(method, 10);
    c.writeUInt32LE(DOS_DATE, 12);
    c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(big ? 0xffffffff : packed.length, 20);
    c.writeUInt32LE(big ? 0xffffffff : data.length, 24);
    c.writeUInt16LE(nameBuf.length, 28);
    c.writeUInt16LE(zip64.length, 30);
    c.writeUInt32LE(big ? 0xffffffff : at, 42);
    this.central.push(Buffer.concat([c, nameBuf, zip64]));
    this.count++;
  }

  /** Writes the central directory and closes the file. */
  close(): void {
    const dirOffset = this.offset;
    const dir = Buffer.concat(this.central);
    this.write(dir);
    const big = dirOffset >= 0xffffffff || this.count >= 0xffff;
    if (big) {
      const e64At = this.offset;
      const e64 = Buffer.alloc(56);
      e64.writeUInt32LE(EOCD64, 0);
      e64.writeBigUInt64LE(44n, 4);
      e64.writeUInt16LE(45, 12);
      e64.writeUInt16LE(45, 14);
      e64.writeBigUInt64LE(BigInt(this.count), 24);
      e64.writeBigUInt64LE(BigInt(this.count), 32);
      e64.writeBigUInt64LE(BigInt(dir.length), 40);
      e64.writeBigUInt64LE(BigInt(dirOffset), 48);
      const loc = Buffer.alloc(20);
      loc.writeUInt32LE(EOCD64_LOCATOR, 0);
      loc.writeBigUInt64LE(BigInt(e64At), 8);
      loc.writeUInt32LE(1, 16);
      this.write(Buffer.concat([e64, loc]));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(EOCD, 0);
    end.writeUInt16LE(big ? 0xffff : this.count, 8);
    end.writeUInt16LE(big ? 0xffff : this.count, 10);
    end.writeUInt32LE(big ? 0xffffffff : dir.length, 12);
    end.writeUInt32LE(big ? 0xffffffff : dirOffset, 16);
    this.write(end);
    fs.closeSync(this.fd);
  }
}
