// Pure: take one file out of a zip archive in memory (a release zip holds `nomad` and a LICENSE), checking its CRC-32.
import { crc32, inflateRawSync } from 'node:zlib';

/** End-of-central-directory record signature, and how far back from the end it can sit (22 bytes + a comment). */
const EOCD_SIG = 0x06054b50;
const EOCD_MAX_BACK = 22 + 0xffff;
const CEN_SIG = 0x02014b50;
const LOC_SIG = 0x04034b50;

/** The bytes of entry `name` (stored or deflated), or what is wrong with the archive. */
export function extractZipEntry(zip: Buffer, name: string): { data: Buffer } | { error: string } {
  const dir = centralDirectory(zip);
  if ('error' in dir) return dir;
  const e = dir.find((x) => x.name === name);
  if (!e) return { error: `the zip holds no ${name} (it holds ${dir.map((x) => x.name).join(', ') || 'nothing'})` };
  if (e.flags & 0x1) return { error: `${name} is encrypted in the zip` };
  const local = e.offset + 30 <= zip.length && zip.readUInt32LE(e.offset) === LOC_SIG;
  if (!local) return { error: `${name}: local header missing` };
  const start = e.offset + 30 + zip.readUInt16LE(e.offset + 26) + zip.readUInt16LE(e.offset + 28);
  const raw = zip.subarray(start, start + e.compressedSize);
  if (raw.length !== e.compressedSize) return { error: `${name}: the zip is cut short` };
  let data: Buffer;
  if (e.method === 0) data = Buffer.from(raw);
  else if (e.method === 8) {
    try {
      data = inflateRawSync(raw);
    } catch (err) {
      return { error: `${name}: cannot be inflated (${(err as Error).message})` };
    }
  } else return { error: `${name}: compression method ${e.method} is not supported (only stored and deflate)` };
  if (data.length !== e.size) return { error: `${name}: ${data.length} bytes unpacked, the zip says ${e.size}` };
  if (crc32(data) >>> 0 !== e.crc) return { error: `${name}: CRC-32 mismatch (the archive is damaged)` };
  return { data };
}

interface Entry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
}

function centralDirectory(zip: Buffer): Entry[] | { error: string } {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - EOCD_MAX_BACK); i--) {
    if (zip.readUInt32LE(i) === EOCD_SIG) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return { error: 'not a zip archive (no end-of-central-directory record)' };
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  if (count === 0xffff || p === 0xffffffff) return { error: 'zip64 archives are not supported' };
  const out: Entry[] = [];
  for (let i = 0; i < count; i++) {
    if (p + 46 > zip.length || zip.readUInt32LE(p) !== CEN_SIG) {
      return { error: `zip central directory entry ${i} is damaged` };
    }
    const nameLen = zip.readUInt16LE(p + 28);
    out.push({
      flags: zip.readUInt16LE(p + 8),
      method: zip.readUInt16LE(p + 10),
      crc: zip.readUInt32LE(p + 16),
      compressedSize: zip.readUInt32LE(p + 20),
      size: zip.readUInt32LE(p + 24),
      offset: zip.readUInt32LE(p + 42),
      name: zip.subarray(p + 46, p + 46 + nameLen).toString('utf8'),
    });
    p += 46 + nameLen + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
  }
  return out;
}
