// The table of public Nomad issues the harness reproduces, as data reviewed like code. Each row cites its CHANGELOG
// line and the fix commits of hashicorp/nomad; test/unit/known-issues-mirror.test.ts holds them to a clone of the
// repository when one is at hand, docs/known-issues.md is written from it (npm run docs).
import type { KnownIssue } from '../model/known-issue.js';
import type { RebootKind } from '../model/kinds.js';

/** The fault kinds that reboot the host: what a restore at boot needs. */
const REBOOTS: readonly RebootKind[] = ['graceful', 'hard', 'panic', 'power-off'];
const url = (n: number) => `https://github.com/hashicorp/nomad/issues/${n}`;
const NO_PUBLIC_FIX = 'no public release of this line has the fix';

export const KNOWN_ISSUES: readonly KnownIssue[] = [
  {
    id: 'GH-24383',
    title:
      'a server panics at startup decrypting an AEAD key from its keystore when the key file has an empty RSA block',
    url: url(24383),
    checks: ['no-agent-crash'],
    conditions: {},
    // the panic of the aead wrapper's Decrypt on an empty ciphertext (in.Ciphertext[:12]), reached from the keystore
    // read at startup (the main fix guards loadKeyFromStore's call); any other crash is not this one
    signature: [
      'slice bounds out of range \\[:12\\]',
      'aead\\.\\(\\*Wrapper\\)\\.Decrypt\\(',
      '\\(\\*Encrypter\\)\\.loadKeyFromStore\\(',
    ],
    // needs keyring material written by an old version (an empty RSA block): a lab bootstrapped fresh has none
    reproduces: 'sometimes',
    fixes: [
      { branch: 'main', commit: '316430b094fd1637ce14a723a0c3441dfa94e0a9' },
      { branch: 'release/1.9.x', commit: '43c82b39a331c10a2d047c017778dff71ba71c3e' },
    ],
    lines: {
      '1.8': { fixedIn: null, note: `${NO_PUBLIC_FIX} (Enterprise: 1.8.7)` },
      '1.8+ent': { fixedIn: '1.8.7' },
      '1.9': { fixedIn: '1.9.2' },
    },
    sinceRelease: '1.10.0',
    source: {
      changelog:
        'keyring: Fixed a panic on server startup when decrypting AEAD key data with empty RSA block [[GH-24383]]',
      tag: 'v1.9.2',
      note: 'signature: the fix guards wrapper.Decrypt in loadKeyFromStore for an empty WrappedRSAKey.Ciphertext; go-kms-wrapping v2 aead (*Wrapper).Decrypt slices in.Ciphertext[:12]',
    },
  },
  {
    id: 'GH-24442',
    title: 'a server panics decrypting an AEAD key with an empty RSA block when keys are upserted into its state',
    url: url(24442),
    checks: ['no-agent-crash'],
    conditions: {},
    // the same panic of the aead wrapper, reached from the task that decrypts a key upserted into the state store
    signature: [
      'slice bounds out of range \\[:12\\]',
      'aead\\.\\(\\*Wrapper\\)\\.Decrypt\\(',
      '\\(\\*Encrypter\\)\\.decryptWrappedKeyTask\\(',
    ],
    reproduces: 'sometimes',
    fixes: [
      { branch: 'main', commit: '4e7496d2469da56195ef30e6521dbc21569df20f' },
      { branch: 'release/1.9.x', commit: '4be138dcc99ad6c0ac7e5b7b74a32b6d1e8a5236' },
    ],
    lines: { '1.9': { fixedIn: '1.9.4' } },
    sinceRelease: '1.10.0',
    source: {
      changelog: 'keyring: Fixed a bug when decrypting aead with an empty RSA block on state upserts [[GH-24442]]',
      tag: 'v1.9.4',
      note: 'signature: the fix guards wrapper.Decrypt in decryptWrappedKeyTask for an empty WrappedRSAKey.Ciphertext (its test: "test for a panic where the key doesn\'t contain the ciphertext")',
    },
  },
  {
    id: 'GH-24739',
    title: 'a client panics restoring a task that runs as a dynamic workload user (nil map in the dynamic users hook)',
    url: url(24739),
    checks: ['no-agent-crash'],
    conditions: {},
    // Prestart wrote the user read back from the hook's previous state into a nil response.State map
    signature: ['assignment to entry in nil map', '\\(\\*dynamicUsersHook\\)\\.Prestart\\('],
    // needs a driver with dynamic workload users (exec2), which the harness's jobs do not use
    reproduces: 'sometimes',
    fixes: [
      { branch: 'main', commit: 'e107d84c7823476b8c1a1abcf16a8ac1ee84d279' },
      { branch: 'release/1.9.x', commit: '0ed94555285d545d257ad227803cf0c2715eeedf' },
    ],
    lines: {
      '1.8': { fixedIn: null, note: `${NO_PUBLIC_FIX} (Enterprise: 1.8.10)` },
      '1.8+ent': { fixedIn: '1.8.10' },
      '1.9': { fixedIn: '1.9.6' },
    },
    sinceRelease: '1.10.0',
    source: {
      changelog: 'taskrunner: fix panic when a task with dynamic user is recovered [[GH-24739]]',
      tag: 'v1.9.6',
      note: 'signature: the fix moves `response.State = make(map[string]string, 1)` before the restart case of (*dynamicUsersHook).Prestart assigns to it',
    },
  },
  {
    id: 'GH-24650',
    title: 'bridge allocs fail to restore after a host reboot: CNI host-local state on disk gives a duplicate IP',
    url: url(24650),
    // the failed restore leaves its reservations and namespaces behind (no-leaks), before GH-26271's cleanup matters
    checks: ['no-duplicate-ip', 'no-leaks'],
    // Note: not docker: before 1.9.5 the docker driver finds its pause container after the reboot and Nomad skips the CNI
    // ADD that would collide (GH-24292: the namespace comes back with lo only); real 1.9.3 docker: no-duplicate-ip passed
    conditions: {
      kinds: REBOOTS,
      drivers: ['exec'],
      scenarios: ['bridge-exec-reboot', 'rolling-reboot', 'upgrade-in-place'],
    },
    reproduces: 'always',
    fixes: [
      { branch: 'main', commit: '24fa7439dffdccc0e4071d09dbc47e8325b4eae2' },
      { branch: 'release/1.9.x', commit: '8fe803a84d860f24b7a281235feb7836405bee6a' },
    ],
    lines: { '1.9': { fixedIn: '1.9.4' } },
    sinceRelease: '1.10.0',
    source: {
      changelog:
        'networking: use a tmpfs location for the state of CNI IPAM plugin used by bridge mode, to fix a bug where allocations would fail to restore after host reboot [[GH-24650]]',
      tag: 'v1.9.4',
    },
  },
  {
    id: 'GH-24292',
    title: 'a docker task in bridge mode is restored after a reboot without its network (namespace has only lo)',
    url: url(24292),
    checks: ['http-reachable', 'task-netns', 'task-env'],
    conditions: { kinds: REBOOTS, drivers: ['docker'], scenarios: ['bridge-exec-reboot'] },
    reproduces: 'always',
    fixes: [
      { branch: 'main', commit: '08a6f870ad2b96c2514e83e9f30eea6523ea0ea4' },
      { branch: 'release/1.9.x', commit: 'f27c521c76afb58b46cbe1987c58bf04f773bb09' },
    ],
    lines: { '1.9': { fixedIn: '1.9.5' } },
    sinceRelease: '1.10.0',
    source: {
      changelog:
        'networking: check network namespaces on Linux during client restarts and fail the allocation if an existing namespace is invalid [[GH-24658]]',
      tag: 'v1.9.5',
      note: 'the fix (PR 24658) says "Fixes: https://github.com/hashicorp/nomad/issues/24292"',
    },
  },
  {
    id: 'GH-25093',
    title: 'CNI state not migrated after an in-place upgrade from <= 1.9.3: restored and new allocs collide on an IP',
    url: url(25093),
    checks: ['unique-ips-after-upgrade', 'state-agrees', 'state-migrated'],
    conditions: { scenarios: ['upgrade-in-place'] },
    // only an upgrade from a build with the state on disk (<= 1.9.3) to 1.9.4-1.9.6 shows it
    reproduces: 'sometimes',
    fixes: [
      { branch: 'main', commit: '716df52788a0b36a8220b4060737dc7a7f499c08' },
      { branch: 'release/1.9.x', commit: '232dd32b1664a08eb0ff155bceb87dadefc5d51c' },
    ],
    lines: { '1.9': { fixedIn: '1.9.7' } },
    sinceRelease: '1.10.0',
    source: {
      changelog:
        'cni: Fixed a bug where CNI state was not migrated after upgrade, resulting in IP collisions [[GH-25093]]',
      tag: 'v1.9.7',
    },
  },
  {
    id: 'GH-26271',
    title: "a failing postrun hook stops the alloc's other cleanup hooks (network state left behind)",
    url: url(26271),
    checks: ['no-leaks'],
    conditions: {},
    // the harness has no fault that makes a cleanup hook fail
    reproduces: 'sometimes',
    fixes: [
      { branch: 'main', commit: '089c148236231e8fb8655c89388ecabe0883b0c9' },
      { branch: 'release/1.10.x', commit: 'd0b06bf02f086fe38657c347e2c6445629a19e36' },
    ],
    lines: { '1.9': { fixedIn: null, note: NO_PUBLIC_FIX }, '1.10': { fixedIn: '1.10.4' } },
    sinceRelease: '1.11.0',
    source: {
      changelog: 'client: run all allocrunner postrun (cleanup) hooks, even if any of them error [[GH-26271]]',
      tag: 'v1.10.4',
    },
  },
  {
    id: 'GH-26424',
    title: 'Nomad services deleted when a node missed heartbeats and recovered before its allocs were marked lost',
    url: url(26424),
    checks: ['services'],
    conditions: { kinds: ['partition'] },
    // needs the node back between missed heartbeats and its allocs marked lost (docs/findings.md): not made yet
    reproduces: 'sometimes',
    fixes: [
      { branch: 'main', commit: '6563d0ec3ca837eaca5f379f9cb4dabbbb153897' },
      { branch: 'release/1.10.x', commit: '74bc3ce90990c9777176497954b2d3b53af748dc' },
    ],
    lines: { '1.9': { fixedIn: null, note: NO_PUBLIC_FIX }, '1.10': { fixedIn: '1.10.4' } },
    sinceRelease: '1.11.0',
    source: {
      changelog:
        'services: Fixed a bug where Nomad services were deleted if a node missed heartbeats and recovered before allocs were migrated [[GH-26424]]',
      tag: 'v1.10.4',
    },
  },
  {
    id: 'GH-26699',
    title: 'after an agent restart a restarted task lacks its network variables, /etc/hosts and resolv.conf',
    url: url(26699),
    checks: ['task-env'],
    conditions: { kinds: ['agent-kill'] },
    reproduces: 'always',
    fixes: [
      { branch: 'main', commit: 'c20f854d162efe9cbe820e8a92de639778c32278' },
      { branch: 'release/1.10.x', commit: '3f1cbcd88a76a0a8820603289e31bd821bac5859' },
    ],
    lines: {
      '1.9': { fixedIn: null, note: NO_PUBLIC_FIX },
      '1.10': { fixedIn: '1.10.6', note: 'release/1.10.x CHANGELOG; the public repository has no v1.10.6 tag' },
    },
    sinceRelease: '1.11.0',
    source: {
      changelog:
        'client: restore task network status on client restart so restarted tasks receive proper networking environment variables, hosts file, and resolv.conf. [[GH-26699]]',
      tag: 'v1.11.0',
    },
  },
  {
    id: 'GH-27825',
    title: "after an agent restart `alloc exec` fails (plugin is shut down): the task's executor died of SIGPIPE",
    url: url(27825),
    checks: ['alloc-exec'],
    conditions: { kinds: ['agent-kill'] },
    // the executor dies only when it writes to the dead agent's pipe: seen on one real run of two
    reproduces: 'sometimes',
    fixes: [
      { branch: 'main', commit: '9680de147c407a9a04bb11a121799511c6da2158' },
      { branch: 'release/2.0.x', commit: '2db92c661a37657b7a93497afcfbee37a4cfec22' },
    ],
    lines: {
      '1.9': { fixedIn: null, note: NO_PUBLIC_FIX },
      '1.10': { fixedIn: null, note: `${NO_PUBLIC_FIX} (Enterprise: 1.10.10)` },
      '1.10+ent': { fixedIn: '1.10.10' },
      '1.11': { fixedIn: null, note: `${NO_PUBLIC_FIX} (Enterprise: 1.11.4)` },
      '1.11+ent': { fixedIn: '1.11.4' },
      '2.0': { fixedIn: '2.0.0' },
    },
    source: {
      changelog:
        'drivers: handle SIGPIPE in executor to handle possible write errors after client restart [[GH-27825]]',
      tag: 'v2.0.0',
    },
  },
  {
    id: 'GH-27885',
    title: 'after an agent restart the agent leaks file descriptors (plugin clients reattached)',
    url: url(27885),
    checks: ['agent-resources'],
    conditions: { kinds: ['agent-kill'] },
    reproduces: 'always',
    fixes: [
      { branch: 'main', commit: 'd922fcdd63e4ffaa99eea488256e0345f8d2757c' },
      { branch: 'release/2.0.x', commit: '5d6969ddfc0f81c0a58ecaea6af40f9170f165c3' },
    ],
    lines: {
      '1.9': { fixedIn: null, note: NO_PUBLIC_FIX },
      '1.10': { fixedIn: null, note: `${NO_PUBLIC_FIX} (Enterprise: 1.10.11)` },
      '1.10+ent': { fixedIn: '1.10.11' },
      '1.11': { fixedIn: null, note: `${NO_PUBLIC_FIX} (Enterprise: 1.11.5)` },
      '1.11+ent': { fixedIn: '1.11.5' },
      '2.0': { fixedIn: '2.0.1' },
    },
    source: {
      changelog:
        'plugins: Fixed a bug where plugin clients would continuously leak file descriptors when the agent was restarted [[GH-27885]]',
      tag: 'v2.0.1',
    },
  },
  {
    id: 'GH-28345',
    title: "after a reboot a restored task's secrets/ and private/ are not on tmpfs (left on the root filesystem)",
    url: url(28345),
    checks: ['task-dirs'],
    conditions: { kinds: REBOOTS },
    reproduces: 'always',
    fixes: [
      { branch: 'main', commit: '906508a67fc81731a7aed1d5a549cc4e7ac443f8' },
      { branch: 'release/2.0.x', commit: '67c53d176b3afe13e693b6f0a3acd0f3fc491d02' },
    ],
    lines: {
      '1.9': { fixedIn: null, note: NO_PUBLIC_FIX },
      '1.10': { fixedIn: null, note: `${NO_PUBLIC_FIX} (Enterprise: 1.10.15)` },
      '1.10+ent': { fixedIn: '1.10.15' },
      '1.11': { fixedIn: null, note: `${NO_PUBLIC_FIX} (Enterprise: 1.11.9)` },
      '1.11+ent': { fixedIn: '1.11.9' },
      '2.0': { fixedIn: '2.0.5' },
    },
    source: {
      changelog:
        'client: Fixed a bug where the client would not remount the secret and private tmpfs after a restart [[GH-28345]]',
      tag: 'v2.0.5',
    },
  },
  {
    id: 'GH-28187',
    title: "a client panics on a nil alloc the server returned for an alloc GC'd between two RPCs (Alloc.GetAllocs)",
    url: url(28187),
    checks: ['no-agent-crash'],
    conditions: {},
    // the client canonicalizes each alloc the server sent: a nil one dereferences in (*Allocation).Canonicalize
    signature: ['nil pointer dereference', 'structs\\.\\(\\*Allocation\\)\\.Canonicalize\\('],
    // a race: the alloc must be GC'd between Node.GetClientAllocs and Alloc.GetAllocs. The fix is on the server
    // (it returns no nil), so the servers' build is the one that counts (the lab runs one build everywhere)
    reproduces: 'sometimes',
    fixes: [
      { branch: 'main', commit: '67a9aa5d93cb3a52121509d3d9d9059c7a94afac' },
      { branch: 'release/2.0.x', commit: '9db548370f5a2b1a1976f03b599e6802be96dc81' },
    ],
    lines: {
      '1.9': { fixedIn: null, note: NO_PUBLIC_FIX },
      '1.10': { fixedIn: null, note: NO_PUBLIC_FIX },
      '1.11': { fixedIn: null, note: NO_PUBLIC_FIX },
      '2.0': { fixedIn: '2.0.4' },
    },
    source: {
      changelog: "client: Fixed a bug where a client could panic after an alloc is GC'd [[GH-28187]]",
      tag: 'v2.0.5',
      note:
        "released in 2.0.4, whose CHANGELOG named it GH-28185 (a wrong PR reference, fixed by PR 28266 'changelog: fix PR reference'); v2.0.5's lists it under 2.0.4 (and again under 2.0.5). " +
        'signature: client/client.go watchAllocations calls alloc.Canonicalize() on each alloc of the Alloc.GetAllocs reply; the fix filters nils out of that reply in nomad/alloc_endpoint.go',
    },
  },
  {
    id: 'GH-25453',
    title: 'a task whose executor is killed is marked complete with exit code 0 (a batch job ends as if it succeeded)',
    url: url(25453),
    checks: ['batch-outcome'],
    conditions: { kinds: ['executor-kill'] },
    // only when the killed executor ran a batch task (the kind kills one executor)
    reproduces: 'sometimes',
    signature: 'complete with exit 0 after its executor was killed',
    fixes: [{ branch: 'main', commit: 'cb8f4ea45244cf4404aa9085353f66e96702c9ab' }],
    lines: { '1.9': { fixedIn: null, note: `${NO_PUBLIC_FIX} (Enterprise: 1.9.8)` } },
    sinceRelease: '1.10.0',
    source: {
      changelog:
        'drivers: set -1 exit code in case of executor failure for the exec, raw_exec, java, and qemu task drivers [[GH-25453]]',
      tag: 'v1.10.0',
    },
  },
  {
    id: 'GH-27499',
    title: 'a node drained, rebooted and marked eligible again gets its system allocs back late or not at all',
    url: url(27499),
    checks: ['system-allocs'],
    conditions: { scenarios: ['rolling-reboot', 'server-reboot'] },
    // #27529 (open) reports system allocs restored "randomly" after a drain: not every roll shows it
    reproduces: 'sometimes',
    signature: 'drained, [a-z-]+, (eligible again|never eligible again)',
    fixes: [
      { branch: 'main', commit: 'dab36c1a09b43cc81880801f8327007d179b02e7' },
      { branch: 'release/1.11.x', commit: '4c869e7afdec5790c41528816ea5dbb73501da06' },
    ],
    lines: {
      '1.9': { fixedIn: null, note: NO_PUBLIC_FIX },
      '1.10': { fixedIn: null, note: NO_PUBLIC_FIX },
      '1.11': { fixedIn: '1.11.3' },
    },
    sinceRelease: '2.0.0',
    source: {
      changelog:
        'core: Fixed system jobs being rescheduled after a node is drained and marked eligible again [[GH-27499]]',
      tag: 'v1.11.3',
    },
  },
  {
    id: 'GH-28018',
    title: 'an extra batch alloc when a draining node is made eligible again',
    url: url(28018),
    checks: ['no-extra-alloc'],
    conditions: { scenarios: ['rolling-reboot', 'server-reboot'] },
    reproduces: 'sometimes',
    fixes: [
      { branch: 'main', commit: 'fb36a287e8e1959e9cb4703f2a5cbb9c7cb9eab5' },
      { branch: 'release/2.0.x', commit: 'c1fe2a8e41540f99617d5b250401f37f63cceca9' },
    ],
    lines: {
      '1.10': { fixedIn: null, note: `${NO_PUBLIC_FIX} (Enterprise: 1.10.14)` },
      '1.10+ent': { fixedIn: '1.10.14' },
      '1.11': { fixedIn: null, note: `${NO_PUBLIC_FIX} (Enterprise: 1.11.8)` },
      '1.11+ent': { fixedIn: '1.11.8' },
      '2.0': { fixedIn: '2.0.4' },
    },
    source: {
      changelog: 'scheduler: keep draining batch alloc counted when node is re-enabled [[GH-28018]]',
      tag: 'v2.0.4',
    },
  },
];
