// e2e tier, no VM: the agent configs the harness renders parse on every Nomad build it is given (1.9 through 2.0),
// checked by each build's own `nomad config validate`. A key a newer line dropped or renamed shows up here before
// a lab is brought up for it. Skips visibly without builds.
import t from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildsFromEnv } from '../helpers/real-nomad.js';
import { renderAgentFiles } from '../../lib/cluster/provision.js';
import { readTemplate } from '../../lib/cluster/templates.js';

const builds = buildsFromEnv();
const skip = builds.length === 0 ? 'no Nomad build given: set NOMAD_BINARIES=/path/a,/path/b (or NOMAD_BINARY)' : false;

/** Warnings every build prints for a lab agent (no mTLS, bootstrap_expect): anything else is news. */
const KNOWN_WARNINGS = [/mTLS is not configured/, /Bootstrap mode enabled/];

t.test(
  `the rendered agent configs are valid for Nomad ${builds.map((b) => b.version).join(', ') || '(none)'}`,
  { skip },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'nrh-agent-configs-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const unit = await readTemplate('nomad.service');
    const vars = {
      private_ip: '10.199.0.10',
      server_ip: '10.199.0.10',
      heartbeat_grace: '5m',
      network_interface: 'eth1',
    };
    const files: Record<string, string> = {};
    for (const role of ['server', 'client'] as const) {
      const rendered = renderAgentFiles(role, vars, { hcl: await readTemplate(`${role}.hcl`), unit });
      files[role] = join(dir, `${role}.hcl`);
      writeFileSync(files[role], rendered.hcl);
    }
    for (const b of builds) {
      t.match(execFileSync(b.path, ['version'], { encoding: 'utf8' }), /^Nomad v/, `${b.path} is Nomad`);
      for (const [role, file] of Object.entries(files)) {
        const r = spawnSync(b.path, ['config', 'validate', file], { encoding: 'utf8', timeout: 60_000 });
        t.equal(r.status, 0, `${b.version} ${role}.hcl: exit 0 (${(r.stderr || r.stdout).trim().split('\n').at(-1)})`);
        t.match(r.stdout, /Configuration is valid!/, `${b.version} ${role}.hcl: valid`);
        const warnings = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => /WARN/i.test(l));
        t.same(
          warnings.filter((w) => !KNOWN_WARNINGS.some((k) => k.test(w))),
          [],
          `${b.version} ${role}.hcl: no other warning`,
        );
      }
    }
  },
);
