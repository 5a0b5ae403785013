/** @module CRC-32 (IEEE 802.3, the zlib and PNG checksum), for PayPal's signed string. */

let table: Uint32Array | undefined;

function crcTable(): Uint32Array {
  if (table) return table;
  table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/**
 * The CRC-32 of `bytes` as an unsigned integer (0 … 4294967295), the value zlib's `crc32` and
 * Java's `java.util.zip.CRC32` give. Node's own `zlib.crc32` arrived in 20.15, after the
 * oldest Node this package supports.
 */
export function crc32(bytes: Uint8Array): number {
  const t = crcTable();
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = t[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
