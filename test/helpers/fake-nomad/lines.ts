// Part of the Nomad API stand-in (not Nomad): what each Nomad line changed in the payload shapes the stand-in serves.
// The samples it builds from (test/fixtures/nomad/*.json) are 1.9 captures; a stand-in started as a later line
// (`nomadVersion`) adds and drops the keys the real captures of that line have (test/fixtures/nomad/real-<version>/,
// compared in test/integration/fake-nomad-vs-real-lines.test.ts). A change is placed at the first recorded line that
// shows it: patch releases between two recorded lines were not looked at.
import { compareVersions } from '../../../lib/parse/versions.js';

/** The payload kinds a line reshapes. */
export type ShapeKind =
  | 'node'
  | 'nodeStub'
  | 'allocStub'
  | 'taskState'
  | 'eval'
  | 'job'
  | 'taskGroup'
  | 'volumeRequest'
  | 'task'
  | 'agentConfig'
  | 'agentClient'
  | 'desiredTransition';

interface LineChange {
  /** the first line whose capture has the change */
  since: string;
  kind: ShapeKind;
  /** keys the line adds, with the value the captures hold for the stand-in's kind of node and job */
  add?: Record<string, unknown>;
  /** keys the line no longer sends */
  drop?: string[];
}

/** `since` of a shape every build of every line has (not a line change: the samples' plain build lacks it). */
const ALL_LINES = 'any';

/** Every key change seen between the 1.9.7 captures and the later lines' captures, by line. */
export const LINE_CHANGES: readonly LineChange[] = [
  // Every release build (the harness's source builds and upstream's: generated codecs) sends these list-stub keys as
  // null; the 1.9 samples and the 1.9.3/1.9.7 reboot-sim captures, from a plain `go build`, leave them out. Seen on
  // 1.9.7's release-build capture (test/fixtures/nomad/real-1.9.7/release-build), so no line change: all lines.
  // the list stub always carries the three fields (null unless ?resources=true / attributes were asked for)
  { since: ALL_LINES, kind: 'nodeStub', add: { Attributes: null, NodeResources: null, ReservedResources: null } },
  // null for a job without a volume or device claim
  { since: ALL_LINES, kind: 'allocStub', add: { AllocatedResources: null } },
  // 1.10 (1.10.5 captures)
  { since: '1.10.0', kind: 'node', add: { NodeMaxAllocs: 0, GCVolumesOnNodeGC: false } },
  { since: '1.10.0', kind: 'taskState', drop: ['TaskHandle'] },
  { since: '1.10.0', kind: 'job', drop: ['ConsulToken', 'VaultToken'] },
  // a group's volume request: sticky host volume claims came with dynamic host volumes (dynamic-host-volume captures)
  { since: '1.10.0', kind: 'volumeRequest', add: { Sticky: false } },
  {
    since: '1.10.0',
    kind: 'agentConfig',
    add: {
      Eventlog: { Enabled: false, Level: 'error' },
      RPC: {
        AcceptBacklog: 256,
        ConnectionWriteTimeout: 10e9,
        ConnectionWriteTimeoutHCL: '10s',
        DialTimeout: 10e9,
        DialTimeoutHCL: '10s',
        KeepAliveInterval: 30e9,
        KeepAliveIntervalHCL: '30s',
        StreamCloseTimeout: 300e9,
        StreamCloseTimeoutHCL: '5m',
        StreamOpenTimeout: 75e9,
        StreamOpenTimeoutHCL: '75s',
      },
    },
  },
  {
    since: '1.10.0',
    kind: 'agentClient',
    add: { GCVolumesOnNodeGC: false, HostVolumePluginDir: '', HostVolumesDir: '', LogFile: '', NodeMaxAllocs: 0 },
  },
  // 1.11 (1.11.3 captures)
  { since: '1.11.0', kind: 'node', drop: ['Reserved', 'Resources'] },
  // a key ID (the node identity's signing key), not a secret
  { since: '1.11.0', kind: 'node', add: { IdentitySigningKeyID: '650bfe6b-95d5-ca5c-8327-989d25be5e7b' } },
  { since: '1.11.0', kind: 'desiredTransition', add: { MigrateDisablePlacement: null } },
  { since: '1.11.0', kind: 'task', add: { Secrets: null } },
  { since: '1.11.0', kind: 'agentClient', add: { CommonPluginDir: '', Fingerprinters: [], IntroToken: '' } },
  // 2.0 (2.0.5 captures)
  { since: '2.0.0', kind: 'taskGroup', add: { MaxRunDuration: null } },
  { since: '2.0.0', kind: 'agentConfig', add: { ConfigPaths: ['/etc/nomad.d/nomad.hcl'] } },
  { since: '2.0.0', kind: 'agentClient', add: { DefaultIneligible: false } },
];

/** Every evaluation the scheduler processed carries PlanAnnotations from this line on (1.11.3 and 2.0.5 captures). */
export const PLAN_ANNOTATIONS_SINCE = '1.11.0';
/** A system job gets a deployment from this line on (1.11.3 and 2.0.5 captures: system/job-deployment.json). */
export const SYSTEM_DEPLOYMENTS_SINCE = '1.11.0';

/**
 * The event Type of a node eligibility change: `NodeDrain` before 2.0 (nomad@v1.11.3:nomad/state/events.go maps
 * NodeUpdateEligibilityRequestType to TypeNodeDrain), `NodeEligibility` from 2.0 (nomad@v2.0.5: TypeNodeEligibilityUpdate).
 */
export const NODE_ELIGIBILITY_EVENT_SINCE = '2.0.0';

/**
 * A Nomad-native check's ID is a sha256 in hex (64 digits) from this release on, an md5 (32) before: nomad@3869aec9a5
 * ("checks: use SHA256 for Nomad native service check IDs", the 2.0.x backport of #28371; real-<line>/cluster/).
 */
export const CHECK_ID_SHA256_SINCE = '2.0.5';

/** Does `version` belong to a line at or after `since`? (an unparsable version is taken as the samples' 1.9) */
export function lineAtLeast(version: string, since: string): boolean {
  const v = /^\d+\.\d+\.\d+/.exec(version)?.[0];
  return v !== undefined && compareVersions(v, since) >= 0;
}

/** `o` with the keys of `kind` as `version`'s line sends them (a new object; key order: the sample's, then added). */
export function forLine<T>(kind: ShapeKind, version: string, o: T): T {
  let out = o as Record<string, unknown>;
  for (const ch of LINE_CHANGES) {
    if (ch.kind !== kind || (ch.since !== ALL_LINES && !lineAtLeast(version, ch.since))) continue;
    const next: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(out)) if (!ch.drop?.includes(k)) next[k] = v;
    for (const [k, v] of Object.entries(ch.add ?? {})) if (!(k in next)) next[k] = structuredClone(v);
    out = next;
  }
  return out as T;
}
