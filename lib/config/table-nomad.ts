// The configuration keys of the Nomad under test: which build (and which to upgrade to), where releases come from,
// and how the harness talks to Nomad. Part of the one table of keys (table.ts).
import { UPGRADE_MODES } from '../model/kinds.js';
import { oneOf, str } from './fields.js';
import { goDurationWithin, timeoutSeconds } from './durations.js';
import { httpUrl } from './network-fields.js';

import type { FieldRow } from './fields.js';

export const NOMAD_ROWS: FieldRow[] = [
  {
    yaml: 'scenarios_dir',
    file: 'read',
    flag: 'scenarios',
    env: 'HARNESS_SCENARIOS_DIR',
    doc: 'directory of your own scenario files (*.ts, docs/scenarios.md), loaded next to the shipped ones',
    parse: str('give the directory holding your scenario files, e.g. ./my-scenarios'),
  },
  {
    yaml: 'nomad_binary',
    file: 'read',
    flag: 'nomad-binary',
    env: 'NOMAD_BINARY',
    aliasOf: 'nomad_build',
    doc: 'the path of a linux/amd64 Nomad build (the older name of --nomad)',
    parse: str('give the path of a linux/amd64 nomad binary, e.g. ./pkg/linux_amd64/nomad'),
  },
  {
    yaml: 'nomad_build',
    file: 'read',
    flag: 'nomad',
    env: 'NOMAD_BUILD',
    path: ['nomadBinary'],
    doc: 'Nomad build to install: a release version (1.9.7, 1.9.7+ent, latest), git:<dir>[@<ref>], or the path of a linux/amd64 binary',
    parse: str('give a release version (1.9.7, latest), git:<dir>[@<ref>], or the path of a linux/amd64 nomad binary'),
  },
  {
    yaml: 'upgrade_to',
    file: 'read',
    flag: 'upgrade-to',
    env: 'NOMAD_UPGRADE_TO',
    doc: 'Nomad build the client is upgraded to in place (upgrade-in-place): a release version, git:<dir>[@<ref>] or a path',
    parse: str('give the build to upgrade to: a release version (1.9.7), git:<dir>[@<ref>] or a path'),
  },
  {
    yaml: 'builds.releases_url',
    flag: 'releases-url',
    env: 'NOMAD_RELEASES_URL',
    doc: 'base URL of the Nomad releases layout for version specs (the official site or a mirror)',
    parse: httpUrl,
  },
  {
    yaml: 'builds.releases_key',
    file: 'read',
    flag: 'releases-key',
    env: 'NOMAD_RELEASES_KEY',
    doc: "public key file a mirror signs its SHA256SUMS with (default: HashiCorp's release key, shipped)",
    parse: str('give the path of an OpenPGP public key file'),
  },
  {
    yaml: 'upgrade.mode',
    flag: 'upgrade-mode',
    doc: 'upgrade-in-place variant: upgrade, restart-only (same build, control case) or upgrade-then-reboot',
    parse: oneOf(UPGRADE_MODES),
  },
  {
    yaml: 'nomad.token',
    env: 'NOMAD_TOKEN',
    doc: 'ACL token for the Nomad API (never logged or reported)',
    secret: true,
    parse: str('give the SecretID of an ACL token'),
  },
  // Note: at most the longest whole-run budget (--timeout): a grace no run can outlast never expires in one
  {
    yaml: 'nomad.heartbeat_grace',
    flag: 'heartbeat-grace',
    doc: 'server heartbeat_grace; shorter than a reboot means the node goes down and allocs are replaced',
    parse: goDurationWithin(6 * 3600),
  },
  {
    yaml: 'nomad.retry_for',
    flag: 'nomad-retry-for',
    path: ['nomad', 'retryForS'],
    parse: timeoutSeconds(0, 3600),
    doc:
      'how long one Nomad API call is retried while Nomad answers 5xx (Go duration or seconds; 0 = not retried); ' +
      'then exit 3 with the status and body',
  },
];
