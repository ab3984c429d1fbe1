// JUnit schema validation for tests: xmllint against junit-10.xsd (Jenkins xUnit's schema, vendored under
// test/fixtures/schemas with its MIT licence), so a clean clone validates without anything outside the repository.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';

export const JUNIT_SCHEMA = fileURLToPath(new URL('../fixtures/schemas/junit-10.xsd', import.meta.url));

/** Why schema validation cannot run here (xmllint missing), or undefined when it can. */
export function xmllintMissing(): string | undefined {
  try {
    execFileSync('xmllint', ['--version'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'xmllint is not installed (apt-get install libxml2-utils): JUnit schema validation not run';
  }
}

/** xmllint's verdict on a file: 'ok' or `INVALID: <its stderr>`. */
export function lintJUnit(file: string): string {
  try {
    execFileSync('xmllint', ['--noout', '--schema', JUNIT_SCHEMA, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    return 'ok';
  } catch (e) {
    return `INVALID: ${String((e as { stderr?: Buffer }).stderr ?? e)}`;
  }
}

/** Assert the file validates against junit-10.xsd; a visible skip (not a pass) without xmllint. */
export function validateJUnit(t: Test, file: string, what = 'JUnit'): void {
  const missing = xmllintMissing();
  if (missing) {
    t.pass(`${what} schema validation`, { skip: missing });
    return;
  }
  const v = lintJUnit(file);
  t.equal(v, 'ok', `${what} validates against junit-10.xsd`);
}
