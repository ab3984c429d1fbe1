// A Nomad releases layout served on loopback by a real HTTP server: zips of a tiny C program that answers `version`
// like Nomad, SHA256SUMS signed with a throwaway gpg key (real gpg, temp GNUPGHOME), index.json; requests counted.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, type Dirent } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { makeZip } from './zip-writer.js';

/** Is there a C compiler and gpg here? (a visible skip reason otherwise) */
export function mirrorPrereqs(): string | undefined {
  for (const [cmd, arg] of [
    ['cc', '--version'],
    ['gpg', '--version'],
    ['gpgv', '--version'],
  ] as const) {
    try {
      execFileSync(cmd, [arg], { stdio: 'ignore' });
    } catch {
      return `${cmd} is not installed`;
    }
  }
  return undefined;
}

const C_SOURCE = `#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "version") == 0) {
    printf("Nomad v%s\\nBuildDate 2024-11-11T16:35:41Z\\nRevision %s\\n", NOMAD_VERSION, NOMAD_REVISION);
    return 0;
  }
  fprintf(stderr, "this is a test stand-in for nomad, not nomad\\n");
  return 1;
}
`;

/** Compile the stand-in (a real x86-64 ELF) printing `version` and `revision`; returns its path. */
export function testNomad(dir: string, version: string, revision: string): string {
  mkdirSync(dir, { recursive: true });
  const src = join(dir, 'fake-nomad.c');
  writeFileSync(src, C_SOURCE);
  const out = join(dir, `nomad-${version}`);
  execFileSync('cc', ['-O0', '-o', out, `-DNOMAD_VERSION="${version}"`, `-DNOMAD_REVISION="${revision}"`, src]);
  return out;
}

/** A throwaway signing key: its GNUPGHOME, armored public key file, fingerprint, and a detached signer. */
export interface TestKey {
  home: string;
  pubFile: string;
  fingerprint: string;
  sign: (data: Buffer) => Buffer;
  stop: () => void;
}

/** Generate an ed25519 signing key with real gpg (batch, no passphrase); its public key file goes to `dir`. */
export function testKey(dir: string, name = 'Mirror Test'): TestKey {
  // Note: gpg-agent's socket lives in GNUPGHOME and a socket path must stay under 108 bytes: a short temp dir.
  const home = mkdtempSync(join(tmpdir(), 'nrh-gpg-test-'));
  mkdirSync(dir, { recursive: true });
  const gpg = (args: string[], input?: Buffer) =>
    execFileSync(
      'gpg',
      ['--homedir', home, '--batch', '--quiet', '--pinentry-mode', 'loopback', '--passphrase', '', ...args],
      { input, stdio: ['pipe', 'pipe', 'ignore'] },
    );
  gpg(['--quick-gen-key', `${name} <mirror@example.invalid>`, 'ed25519', 'sign', 'never']);
  const pubFile = join(dir, `${name.replace(/\W+/g, '-')}.asc`);
  writeFileSync(pubFile, gpg(['--armor', '--export']));
  const fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(gpg(['--with-colons', '--list-keys']).toString())![1]!;
  return {
    home,
    pubFile,
    fingerprint,
    sign: (data) => gpg(['--detach-sign', '-o', '-'], data),
    stop: () => {
      try {
        execFileSync('gpgconf', ['--homedir', home, '--kill', 'gpg-agent'], { stdio: 'ignore' });
      } catch {
        /* no agent */
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** One version as the mirror serves it. */
export interface Published {
  zip: Buffer;
  sums: string;
  sig: Buffer;
}

/** Publish `binary` as version `v`: zip (nomad + LICENSE.txt), SHA256SUMS listing it, its signature by `key`. */
export function publish(v: string, binary: Buffer, key: TestKey): Published {
  const zip = makeZip([
    { name: 'nomad', data: binary },
    { name: 'LICENSE.txt', data: Buffer.from('test\n') },
  ]);
  const sha = createHash('sha256').update(zip).digest('hex');
  const sums = `${'0'.repeat(64)}  nomad_${v}_darwin_arm64.zip\n${sha}  nomad_${v}_linux_amd64.zip\n`;
  return { zip, sums, sig: key.sign(Buffer.from(sums)) };
}

/** The running mirror: its base URL, requests seen per path, and stop(). */
export interface Mirror {
  url: string;
  requests: string[];
  count: (suffix?: string) => number;
  stop: () => Promise<void>;
}

/** Serve `versions` (plus index.json listing them and `extraVersions`) under /nomad/ on 127.0.0.1. */
export async function startMirror(versions: Record<string, Published>, extraVersions: string[] = []): Promise<Mirror> {
  const files = new Map<string, Buffer>();
  for (const [v, p] of Object.entries(versions)) {
    files.set(`/nomad/${v}/nomad_${v}_linux_amd64.zip`, p.zip);
    files.set(`/nomad/${v}/nomad_${v}_SHA256SUMS`, Buffer.from(p.sums));
    files.set(`/nomad/${v}/nomad_${v}_SHA256SUMS.sig`, p.sig);
  }
  const all = [...Object.keys(versions), ...extraVersions];
  const listed = Object.fromEntries(all.map((v) => [v, { name: 'nomad', version: v }]));
  files.set('/nomad/index.json', Buffer.from(JSON.stringify({ name: 'nomad', versions: listed })));
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    const body = files.get(path);
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/octet-stream' });
    res.end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    count: (suffix = '') => requests.filter((r) => r.endsWith(suffix)).length,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every file under `dir` (relative paths): what a cache holds. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) e.isDirectory() ? walk(join(d, e.name), join(rel, e.name)) : out.push(join(rel, e.name));
  };
  walk(dir, '');
  return out.sort();
}

/** Read a file (shorthand for tests). */
export const bytes = (p: string): Buffer => readFileSync(p);
