// The one guarded read of a file the user named (or one found beside what they named: the package.json above their
// scenarios): opened without waiting (O_NONBLOCK: a FIFO with no writer opens at once; O_NOCTTY: a terminal does not
// become ours), judged by the open descriptor (fstat: nothing can swap the file between a look and the read), refused
// unless it is a regular file or /dev/null, and read up to a bound. A FIFO read blocked a thread Node waits for at exit,
// past SIGTERM (Q178, Q186, Q193, Q250); /dev/zero read whole took 16 GB.
import { constants, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';

/** What a path is when it is no file the harness can read as one. */
type NotAFile = 'a named pipe (FIFO)' | 'a socket' | 'a character device' | 'a block device';

/** Input files are text of a few KiB (a job, a schedule, a key); 16 MiB is no input, and bounds what a slip costs. */
const INPUT_MAX_BYTES = 16 * 1024 * 1024;

let devNull: Promise<bigint | number | undefined> | undefined;
/** /dev/null's device number: it reads as empty, and is a way to give nothing. */
const devNullRdev = () =>
  (devNull ??= stat('/dev/null').then(
    (s) => s.rdev,
    () => undefined,
  ));

/** What `st` is when it is neither a regular file, a directory, nor /dev/null. */
export async function notAFileKind(
  st: Pick<Stats, 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice' | 'rdev'>,
): Promise<NotAFile | undefined> {
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  const device = st.isCharacterDevice() || st.isBlockDevice();
  if (!device || st.rdev === (await devNullRdev())) return undefined;
  return st.isCharacterDevice() ? 'a character device' : 'a block device';
}

/** The words every input slot says about such a path (one wording: the tests match it). */
export function notAFileText(what: NotAFile): { message: string; fix: string } {
  const device = what === 'a character device' || what === 'a block device';
  return {
    message: `is ${what}, not a file: ${
      device
        ? 'reading it would not end (/dev/zero, /dev/urandom, a disk) or would wait for typing (a terminal)'
        : 'reading it would wait for a writer'
    }, and the harness reads its inputs more than once`,
    fix: 'write it to a file first and give that file',
  };
}

type InputRead =
  | { ok: true; bytes: Buffer }
  /** not a file (`what`), larger than the bound, or an error of the open or read (`code`: ENOENT, EISDIR, ...) */
  | { ok: false; message: string; fix: string; code?: string };

/**
 * The bytes of the file at `path`, or why it is not read (nothing read from what is not a regular file). With `head`,
 * only its first `head` bytes, whatever its size: enough to tell what a file is before reading it whole.
 */
export async function readInputFile(
  path: string,
  { maxBytes = INPUT_MAX_BYTES, head }: { maxBytes?: number; head?: number } = {},
): Promise<InputRead> {
  const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY).catch(
    (err: NodeJS.ErrnoException) => err,
  );
  if (fh instanceof Error) {
    // a socket cannot be opened (ENXIO): named as what it is, with the words a FIFO gets
    const st = await stat(path).catch(() => undefined);
    const what = st && (await notAFileKind(st));
    if (what) return { ok: false, ...notAFileText(what) };
    return {
      ok: false,
      code: fh.code ?? 'EIO',
      message: `cannot be read (${fh.code ?? fh.message})`,
      fix: 'give a file you can read',
    };
  }
  try {
    const st = await fh.stat();
    const what = await notAFileKind(st);
    if (what) return { ok: false, ...notAFileText(what) };
    if (st.isDirectory())
      return { ok: false, code: 'EISDIR', message: 'is a directory, not a file', fix: 'give a file' };
    if (!st.isFile()) return { ok: true, bytes: Buffer.alloc(0) };
    if (head !== undefined) {
      const buf = Buffer.alloc(head);
      const { bytesRead } = await fh.read(buf, 0, head, 0);
      return { ok: true, bytes: buf.subarray(0, bytesRead) };
    }
    if (st.size > maxBytes)
      return {
        ok: false,
        message: `is ${st.size} bytes, more than any input (${maxBytes})`,
        fix: 'give the input file itself',
      };
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let n = 0;
    // Note: read to the bound + 1 (a file that grew after the fstat is refused, not cut)
    for (;;) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n === buf.length)
        return {
          ok: false,
          message: `grew while read (past the ${st.size} bytes it had when opened)`,
          fix: 'give a file that is not being written',
        };
    }
    return { ok: true, bytes: buf.subarray(0, n) };
  } finally {
    await fh.close();
  }
}
