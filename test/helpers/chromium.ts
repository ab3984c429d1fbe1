// Headless Chromium for page tests: file:// URLs only, flags that stop its background traffic, and as root a fresh
// network namespace (`unshare --net`: loopback only, down), so it cannot reach any network at all.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';
/** Why Chromium tests cannot run here, or false. */
export const chromiumMissing: string | false = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing (apt-get install -y chromium)`;
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-proxy-server',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--metrics-recording-only',
  '--no-first-run',
  '--disable-dev-shm-usage',
  '--hide-scrollbars',
];
/** Whether Chromium runs in its own empty network namespace. */
export const chromiumIsolated = process.getuid?.() === 0 && spawnSync('unshare', ['--net', 'true']).status === 0;

/** Run Chromium once on a local file with a throwaway profile under `dir`; returns stdout. */
export function chromium(dir: string, file: string, args: string[]): string {
  const url = pathToFileURL(file).href;
  if (!url.startsWith('file:///')) throw new Error(`only file:// URLs: ${url}`);
  const argv = [...FLAGS, `--user-data-dir=${join(dir, 'profile')}`, ...args, url];
  const [cmd, full] = chromiumIsolated ? ['unshare', ['--net', CHROMIUM, ...argv]] : [CHROMIUM, argv];
  return execFileSync(cmd, full, {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 32 << 20,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOME: dir },
  });
}

/** Width and height from a PNG's IHDR chunk (throws when the file is not a PNG). */
export function pngSize(file: string): { width: number; height: number; bytes: number } {
  const b = readFileSync(file);
  if (b.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a' || b.subarray(12, 16).toString('latin1') !== 'IHDR')
    throw new Error(`${file} is not a PNG`);
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20), bytes: b.length };
}
