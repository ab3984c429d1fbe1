// lib/cluster/upgrade.ts with a recording machine: the build is checked, uploaded, installed over the old one, and the
// agent restarted with no drain; a failing command is an error naming the machine and the step.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecResult, Machine } from '../../lib/model/lab.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { upgradeCommands, upgradeNomad } from '../../lib/cluster/upgrade.js';

/** The first 64 bytes of a linux/amd64 ELF executable (what checkNomadBinary reads). */
function elfHeader(): Buffer {
  const b = Buffer.alloc(64);
  b.write('\x7fELF', 0, 'latin1');
  b[4] = 2;
  b[5] = 1;
  b[6] = 1;
  b[7] = 0;
  b.writeUInt16LE(2, 16);
  b.writeUInt16LE(0x3e, 18);
  return b;
}

function machine(fail?: RegExp) {
  const log: string[] = [];
  const m: Machine = {
    role: 'client',
    name: 'r1-client',
    async exec(cmd): Promise<ExecResult> {
      log.push(`exec ${cmd}`);
      if (fail?.test(cmd)) return { code: 1, stdout: '', stderr: 'Job for nomad.service failed.', durationMs: 1 };
      return {
        code: 0,
        stdout: cmd.endsWith(' version') ? 'Nomad v1.9.7\nBuildDate 2025-03-11T09:07:15Z\n' : 'active\n',
        stderr: '',
        durationMs: 1,
      };
    },
    async upload(local, remote) {
      log.push(`upload ${local} -> ${remote}`);
    },
    async writeFile() {},
    async bootId() {
      return 'b';
    },
    async forward() {
      throw new Error('no');
    },
    async disconnect() {},
  };
  return { m, log };
}

t.test(
  'the commands: install over the old binary, version, restart; never a drain or a stop of the allocs',
  async (t) => {
    const cmds = upgradeCommands().map((c) => c.cmd);
    t.match(cmds[0], /^install -m 0755 \/tmp\/nomad\.upload \/usr\/local\/bin\/nomad$/);
    t.match(cmds.at(-1), /systemctl restart nomad\.service/);
    t.notMatch(cmds.join('\n'), /drain|node eligibility|job stop|systemctl stop/);
  },
);

t.test('upgradeNomad uploads the build, runs the steps in order and returns the new version', async (t) => {
  const bin = join(t.testdir({}), 'nomad-1.9.7');
  writeFileSync(bin, elfHeader());
  const { m, log } = machine();
  const r = await upgradeNomad(m, bin, deadlineIn(5000));
  t.equal(r.version, 'Nomad v1.9.7\nBuildDate 2025-03-11T09:07:15Z');
  t.same(log, [`upload ${bin} -> /tmp/nomad.upload`, ...upgradeCommands().map((c) => `exec ${c.cmd}`)]);
});

t.test(
  'a build that is not linux/amd64 is refused before anything is uploaded; a failed restart names the step',
  async (t) => {
    const dir = t.testdir({ 'nomad.zip': 'PK\x03\x04rest' });
    const { m, log } = machine();
    await t.rejects(upgradeNomad(m, join(dir, 'nomad.zip'), deadlineIn(5000)), {
      exitCode: 2,
      message: /upgrade_to: .*zip archive/,
    });
    t.same(log, [], 'nothing reached the machine');
    const bin = join(dir, 'nomad');
    writeFileSync(bin, elfHeader());
    const broken = machine(/systemctl restart/);
    await t.rejects(upgradeNomad(broken.m, bin, deadlineIn(5000)), {
      message: /r1-client: restarting the nomad agent failed \(exit 1\): Job for nomad\.service failed\./,
    });
  },
);
