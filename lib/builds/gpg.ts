// Verify a detached OpenPGP signature with the real gpgv against one trusted key file, in a throwaway keyring.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ANY_EXIT_CODE, runCommand, type RunCommand } from '../exec/run.js';
import { EXIT, HarnessError } from '../errors.js';
import type { Deadline } from '../time/deadlines.js';
import type { Logger } from '../log/events.js';
import { parseGpgvStatus, type SignatureCheck } from '../parse/go-tools.js';

/** HashiCorp's release signing key as published (hashicorp.com/security; renewed 2026, expires 2030-03-01). */
export const HASHICORP_KEY_FILE = fileURLToPath(new URL('./hashicorp-release-key.asc', import.meta.url));
/** Its primary key fingerprint: a signature must come from this key when the shipped key file is used. */
export const HASHICORP_FINGERPRINT = 'C874011F0AB405110D02105534365D9472D7468F';

interface VerifyOptions {
  /** armored or binary public key file(s) trusted for this check */
  keyFile: string;
  /** the primary key fingerprint the signature must come from (the shipped key's; none for a mirror's own key) */
  fingerprint?: string;
  deadline: Deadline;
  run?: RunCommand;
  logger?: Logger;
}

/** Check `sigFile` over `dataFile`; the keyring is made from `keyFile` in a temp dir and removed afterwards. */
export async function verifyDetached(dataFile: string, sigFile: string, o: VerifyOptions): Promise<SignatureCheck> {
  const { keyFile, fingerprint, deadline, run = runCommand, logger } = o;
  const home = await mkdtemp(join(tmpdir(), 'nrh-gpg-'));
  try {
    const keyring = join(home, 'trusted.kbx');
    // Note: gpg (not gpgv) imports; --homedir keeps the user's own keyrings and agent out of it.
    const imported = await run(
      'gpg',
      [
        '--batch',
        '--quiet',
        '--homedir',
        home,
        '--no-default-keyring',
        '--keyring',
        keyring,
        '--import',
        resolve(keyFile),
      ],
      { deadline, logger, allowedCodes: ANY_EXIT_CODE },
    );
    if (imported.code !== 0) {
      throw new HarnessError(
        `the trusted key file ${keyFile} could not be read as an OpenPGP public key: ` +
          `${imported.stderr.trim().split('\n').slice(-2).join(' ')}`,
        {
          exitCode: EXIT.USAGE,
          hint: 'give --releases-key (NOMAD_RELEASES_KEY) the armored public key that signs the SHA256SUMS files',
        },
      );
    }
    const r = await run(
      'gpgv',
      ['--homedir', home, '--status-fd', '1', '--keyring', keyring, resolve(sigFile), resolve(dataFile)],
      { deadline, logger, allowedCodes: ANY_EXIT_CODE },
    );
    return parseGpgvStatus(r.stdout, fingerprint);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
