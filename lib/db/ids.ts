import { randomBytes } from "node:crypto";

let lastMs = 0;
let seq = 0;
// Random bytes drawn 4 KiB at a time: one randomBytes() call per id cost more than the rest of
// the id (bulk import makes thousands a second).
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolAt = POOL_BYTES;

/**
 * A time-ordered UUID (version 7, RFC 9562), the same kind Prisma's `uuid(7)` default makes.
 * Ids that grow with time keep inserts at the end of the primary-key and (episodeId, index)
 * b-trees, which is what makes bulk import fast at 100,000 episodes. A 12-bit counter keeps ids
 * made within the same millisecond in order.
 */
export function uuidv7(now = Date.now()): string {
  if (now <= lastMs) {
    seq = (seq + 1) & 0xfff;
    if (seq === 0) lastMs++;
    now = lastMs;
  } else {
    lastMs = now;
    seq = 0;
  }
  if (poolAt + 16 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolAt = 0;
  }
  const b = pool.subarray(poolAt, (poolAt += 16)); // each pooled byte is used once
  // 48-bit milliseconds, big-endian (two writes: bit operators work on 32 bits).
  b.writeUInt16BE(Math.floor(now / 2 ** 32) & 0xffff, 0);
  b.writeUInt32BE((now % 2 ** 32) >>> 0, 2);
  b[6] = 0x70 | (seq >> 8);
  b[7] = seq & 0xff;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
