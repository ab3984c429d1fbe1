// A release version: from the releases layout, SHA256SUMS signature verified with gpgv, zip checksum checked, cached.
import { writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, EXIT, HarnessError } from '../errors.js';
import { deadlineIn } from '../time/deadlines.js';
import { cachedBinary, commitBinary, readRecord, sha256File, sha256Of, workDir, writeRecord } from './cache.js';
import { info, type BuildContext } from './context.js';
import { HASHICORP_FINGERPRINT, HASHICORP_KEY_FILE, verifyDetached } from './gpg.js';
import { httpGet, ZIP_MAX_BYTES } from './http.js';
import { indexUrl, parseReleaseIndex, releaseFiles, sha256For, type ReleaseFiles } from '../parse/release-index.js';
import type { NomadVersion } from '../parse/go-tools.js';
import { preflightBuild } from './preflight.js';
import { VERIFIED, type ResolvedBuild } from '../model/build.js';
import { latestVersion, nearestVersions } from '../parse/versions.js';
import { extractZipEntry } from './zip.js';

/** Per request: index.json and SHA256SUMS are small; a Nomad zip is ~40 MB, slow mirrors exist. */
const SMALL_FILE_MS = 60_000;
const ZIP_MS = 15 * 60_000;

const MIRROR_FIX =
  'use the official site (--releases-url https://releases.hashicorp.com), or the key the mirror ' +
  'signs with (--releases-key), or a local build (a path, or git:<dir>[@<ref>])';

/** What the cache remembers about a version it verified: the binary's sha256 and where the zip came from. */
interface ReleaseRecord {
  version: string;
  url: string;
  sha256: string;
  zipSha256: string;
  verifiedAt: string;
}

type Get = (url: string, ms: number, maxBytes?: number) => Promise<{ status: number; body: Buffer }>;
type Problem = (message: string, fix: string) => ConfigError;

/** Where the cache records a release version verified from one releases site. */
const releaseRecordName = (base: string, version: string): string =>
  `releases/${sha256Of(base.replace(/\/+$/, '')).slice(0, 12)}/${version}.json`;

/** The cached binary of a release version verified before (no request, nothing downloaded), or undefined. */
export async function cachedRelease(version: string, root: string, base: string): Promise<string | undefined> {
  const rec = await readRecord<ReleaseRecord>(root, releaseRecordName(base, version));
  return rec && rec.url === releaseFiles(base, version).zip ? await cachedBinary(root, rec.sha256) : undefined;
}

/**
 * Resolve release `version` (or `latest`) to a verified, cached binary. A version verified before is taken from the
 * cache without any request (except `latest`, which asks index.json which version that is).
 */
export async function resolveRelease(
  version: string,
  spec: string,
  field: string,
  ctx: BuildContext,
): Promise<ResolvedBuild> {
  const { cacheRoot: root, releasesUrl: base, logger } = ctx;
  const problem: Problem = (message, fix) => new ConfigError([{ field, value: spec, message, fix }]);
  const fetchOpt = ctx.fetch ? { fetch: ctx.fetch } : {};
  const get: Get = (url, ms, maxBytes) =>
    httpGet(url, { deadline: deadlineIn(ms, ctx.deadline), logger, ...fetchOpt, ...(maxBytes ? { maxBytes } : {}) });
  const check = (path: string) => preflightBuild(path, { field, spec, logger, ...effects(ctx) });
  const v = version === 'latest' ? await latest(base, get, problem) : version;
  const files = releaseFiles(base, v);
  const recordName = releaseRecordName(base, v);
  const done = (path: string, sha256: string, nv: NomadVersion): ResolvedBuild => ({
    spec,
    path,
    sha256,
    version: nv.version,
    revision: nv.revision,
    origin: { kind: 'release', url: files.zip, verified: VERIFIED },
  });

  const rec = await readRecord<ReleaseRecord>(root, recordName);
  const hit = rec && rec.url === files.zip ? await cachedBinary(root, rec.sha256) : undefined;
  if (rec && hit) {
    const nv = await check(hit);
    const message = `${spec}: Nomad ${nv.version} from the cache (${hit}), verified ${rec.verifiedAt}`;
    info(ctx, message);
    return done(hit, rec.sha256, nv);
  }

  info(ctx, `${spec}: downloading Nomad ${v} from ${base}`);
  const sums = await get(files.sums, SMALL_FILE_MS);
  if (sums.status === 404) throw await unknownVersion(v, base, get, problem);
  if (sums.status !== 200) throw badStatus(files.sums, sums.status);
  const sig = await get(files.sig, SMALL_FILE_MS);
  if (sig.status === 404) {
    throw problem(`${files.sig} does not exist, so the SHA256SUMS cannot be verified`, MIRROR_FIX);
  }
  if (sig.status !== 200) throw badStatus(files.sig, sig.status);

  const work = await workDir(root, `release-${v}`);
  try {
    const zipSha256 = await verifiedZipSha256(files, sums.body, sig.body, work, ctx, problem);
    const zip = await get(files.zip, ZIP_MS, ZIP_MAX_BYTES);
    if (zip.status !== 200) throw badStatus(files.zip, zip.status);
    const got = sha256Of(zip.body);
    if (got !== zipSha256) {
      throw problem(
        `checksum mismatch: ${files.zipName} has sha256 ${got}, the signed SHA256SUMS says ${zipSha256}`,
        'download again; if it persists the mirror serves a damaged or altered file: use another --releases-url',
      );
    }
    const entry = extractZipEntry(zip.body, 'nomad');
    if ('error' in entry) throw problem(`${files.zipName}: ${entry.error}`, MIRROR_FIX);
    const file = join(work, 'nomad');
    await writeFile(file, entry.data, { mode: 0o755 });
    const nv = await check(file);
    if (nv.version !== v) {
      throw problem(`${files.zipName} holds Nomad ${nv.version}, not ${v}`, 'check the mirror (--releases-url)');
    }
    const sha256 = await sha256File(file);
    const meta = { spec, origin: files.zip, version: nv.version, revision: nv.revision };
    const path = await commitBinary(root, file, sha256, meta);
    const verifiedAt = new Date().toISOString();
    const record: ReleaseRecord = { version: v, url: files.zip, sha256, zipSha256: got, verifiedAt };
    await writeRecord(root, recordName, record);
    info(ctx, `${spec}: Nomad ${nv.version} (${VERIFIED}) cached at ${path}`);
    return done(path, sha256, nv);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Check the SHA256SUMS signature (gpgv) and return the zip's sha256 from it; a bad signature is a ConfigError. */
async function verifiedZipSha256(
  files: ReleaseFiles,
  sums: Buffer,
  sig: Buffer,
  work: string,
  ctx: BuildContext,
  problem: Problem,
): Promise<string> {
  await writeFile(join(work, 'SHA256SUMS'), sums);
  await writeFile(join(work, 'SHA256SUMS.sig'), sig);
  const keyFile = ctx.releasesKey ?? HASHICORP_KEY_FILE;
  // Note: the shipped key must also be the signer by fingerprint; a mirror's own key file is trusted as a whole.
  const pin = ctx.releasesKey ? {} : { fingerprint: HASHICORP_FINGERPRINT };
  const check = await verifyDetached(join(work, 'SHA256SUMS'), join(work, 'SHA256SUMS.sig'), {
    keyFile,
    ...pin,
    deadline: deadlineIn(SMALL_FILE_MS, ctx.deadline),
    logger: ctx.logger,
    ...(ctx.run ? { run: ctx.run } : {}),
  });
  if (!check.ok) {
    throw problem(`the signature of ${files.sums} does not verify against ${keyFile}: ${check.reason}`, MIRROR_FIX);
  }
  const want = sha256For(sums.toString('utf8'), files.zipName);
  if ('error' in want) throw problem(`${files.sums}: ${want.error}`, MIRROR_FIX);
  return want.sha256;
}

const effects = (ctx: BuildContext) => ({
  ...(ctx.run ? { run: ctx.run } : {}),
  ...(ctx.deadline ? { deadline: ctx.deadline } : {}),
});

function badStatus(url: string, status: number): HarnessError {
  return new HarnessError(`GET ${url} answered HTTP ${status}`, {
    exitCode: EXIT.INFRA,
    hint: 'try again later, point --releases-url at a mirror, or give a path or git:<dir> build',
  });
}

async function versionsAt(base: string, get: Get): Promise<string[] | { error: string }> {
  const r = await get(indexUrl(base), SMALL_FILE_MS);
  if (r.status !== 200) return { error: `${indexUrl(base)} answered HTTP ${r.status}` };
  const parsed = parseReleaseIndex(r.body.toString('utf8'));
  return 'error' in parsed ? parsed : parsed.versions;
}

async function latest(base: string, get: Get, problem: Problem): Promise<string> {
  const versions = await versionsAt(base, get);
  const fix = 'name a version, e.g. 1.9.7';
  if (!Array.isArray(versions)) throw problem(`"latest" needs the version list: ${versions.error}`, fix);
  const v = latestVersion(versions);
  if (!v) throw problem(`${indexUrl(base)} lists no final release`, fix);
  return v;
}

async function unknownVersion(v: string, base: string, get: Get, problem: Problem): Promise<ConfigError> {
  const versions = await versionsAt(base, get);
  const near = Array.isArray(versions) ? nearestVersions(v, versions) : [];
  return problem(
    `no release ${v} at ${base}`,
    near.length
      ? `use one of the nearest published versions: ${near.join(', ')} (or latest)`
      : `check the version at ${indexUrl(base)}`,
  );
}
