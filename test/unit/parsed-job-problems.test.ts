// The user's job checked at input time (a build that is a file here parses it) by the scenario that runs it: a system
// or batch job is taken by rolling-reboot and server-reboot and refused by bridge-exec-reboot, naming that scenario.
import t from 'tap';
import { join } from 'node:path';
import { parsedJobProblems } from '../../lib/cli/session-input.js';
import { configOf } from '../helpers/config-sources.js';
import type { JobConverter } from '../../lib/cluster/job-convert.js';

const job = (type: string) => ({
  Job: {
    ID: `a-${type}`,
    Type: type,
    TaskGroups: [
      {
        Name: 'g',
        Count: 1,
        Networks: [{ Mode: 'host', DynamicPorts: [{ Label: 'http' }] }],
        Tasks: [{ Name: 't', Driver: 'exec' }],
      },
    ],
  },
});

t.test('each scenario checks the job types it takes', async (t) => {
  const dir = t.testdir({ nomad: '#!/bin/sh\n', 'a.nomad.hcl': '', 'b.nomad.hcl': '' });
  const types: Record<string, string> = { [join(dir, 'a.nomad.hcl')]: 'system', [join(dir, 'b.nomad.hcl')]: 'batch' };
  const convertJob: JobConverter = async (o) => ({ ok: true, job: job(types[o.file]!) });
  const at = (scenario: string) => ({
    ...configOf({
      flags: {
        'nomad-binary': join(dir, 'nomad'),
        job: [join(dir, 'a.nomad.hcl'), join(dir, 'b.nomad.hcl')],
        ...(scenario === 'bridge-exec-reboot' ? {} : { servers: 3, clients: 2 }),
      },
    }),
    scenario,
  });
  for (const s of ['rolling-reboot', 'server-reboot'])
    t.same(await parsedJobProblems([at(s)], { cwd: dir, convertJob }), [], `${s} takes system and batch jobs`);
  const refused = await parsedJobProblems([at('bridge-exec-reboot')], { cwd: dir, convertJob });
  t.match(
    refused.map((p) => p.message),
    [
      /job "a-system" is a system job: bridge-exec-reboot judges service jobs only/,
      /job "a-batch" is a batch job: bridge-exec-reboot judges service jobs only/,
    ],
  );
});

t.test('a harness.yaml that did not read gave no job.vars: Nomad’s "Unset variable" is not told (Q147)', async (t) => {
  const dir = t.testdir({ nomad: '#!/bin/sh\n', 'a.nomad.hcl': '' });
  const convertJob: JobConverter = async () => ({
    ok: false,
    message: 'Error getting job struct: a.nomad.hcl:1,1-1: Unset variable "apiSecret"; A used variable must be set',
  });
  const c = {
    ...configOf({ flags: { 'nomad-binary': join(dir, 'nomad'), job: [join(dir, 'a.nomad.hcl')] } }),
    scenario: 'bridge-exec-reboot',
  };
  const unread = [{ field: 'harness.yaml', value: 'x', message: 'is not valid YAML', fix: 'fix it' }];
  t.match(
    (await parsedJobProblems([c], { cwd: dir, convertJob })).map((p) => p.message),
    [/Unset variable "apiSecret"/],
    'told when the files read (the variable is really unset)',
  );
  t.same(await parsedJobProblems([c], { cwd: dir, convertJob }, unread), [], 'not when harness.yaml did not read');
  const other: JobConverter = async () => ({
    ok: false,
    message: 'Error parsing job file: a.nomad.hcl:3,1: Argument or block definition required',
  });
  t.equal(
    (await parsedJobProblems([c], { cwd: dir, convertJob: other }, unread)).length,
    1,
    'another parse error is told',
  );
});
