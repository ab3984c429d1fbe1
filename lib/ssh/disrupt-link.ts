// How the link faults are done over SSH (lib/faults/link-flap.ts, link-loss.ts, leader-partition.ts say what they
// are): partition's tagged iptables cut repeated (a flapping link), a netem qdisc on the traffic toward the servers
// (a lossy, slow link), and the leader cut off every other machine. Each has a systemd timer on the machine that
// undoes it should the harness die; the host keeps running: same boot_id.
import { HarnessError } from '../errors.js';
import type { FaultMark, RebootRecord } from '../model/lab.js';
import { sleep } from '../time/deadlines.js';
import { quote } from '../shell/quote.js';
import {
  dropCommands,
  healCut,
  holdCut,
  PARTITION_HEAL_UNIT,
  PARTITION_TAG,
  partitionCommands,
  rootSh,
  scheduleHeal,
  SERVER_PORTS,
  type FaultOptions,
} from './disrupt.js';
import type { Rebootable } from './reboot.js';

/** The leader partition's rules' tag and its safety unit (apart from partition's, so neither heals the other). */
const LEADER_TAG = 'nrh-leader-partition';
const LEADER_HEAL_UNIT = 'nrh-heal-leader-partition';
/** The netem qdisc's safety unit. */
const LOSS_HEAL_UNIT = 'nrh-heal-link-loss';

interface FlapOptions extends FaultOptions {
  count: number;
  downMs: number;
  upMs: number;
}

/**
 * Cut the machine off every server of `serverIps` (partition's rules) `count` times: down for `downMs`, then up for
 * `upMs`; one safety timer covers the whole flap; after each heal no tagged rule may be left.
 */
export async function linkFlap(m: Rebootable, serverIps: readonly string[], o: FlapOptions): Promise<RebootRecord> {
  const { deadline, count, downMs, upMs } = o;
  const cut = (op: '-I' | '-D') => serverIps.flatMap((ip) => partitionCommands(ip, op));
  const spec = { heal: cut('-D'), tag: PARTITION_TAG, healUnit: PARTITION_HEAL_UNIT, what: 'the link flap' };
  const bootIdBefore = await m.bootId({ deadline });
  await scheduleHeal(m, PARTITION_HEAL_UNIT, spec.heal, count * (downMs + upMs), deadline);
  const requestedAt = Date.now();
  const marks: FaultMark[] = [];
  const to = `${serverIps.join(',')} ports ${SERVER_PORTS.join(',')}`;
  for (let i = 1; i <= count; i++) {
    await rootSh(m, cut('-I').join(' && '), deadline, `link flap ${i}`);
    marks.push({ atMs: Date.now(), label: `link down (${i}/${count})`, detail: `iptables DROP to/from ${to}` });
    // Note: deliberate holds (the flap under test), not polls
    await sleep(downMs, deadline);
    await healCut(m, spec, deadline, i < count);
    marks.push({ atMs: Date.now(), label: `link up (${i}/${count})` });
    if (i < count) await sleep(upMs, deadline);
  }
  const backAt = Date.now();
  marks.push({ atMs: backAt, label: 'link flapped', detail: `${count} cuts of ${downMs / 1000} s` });
  const bootIdAfter = await m.bootId({ deadline });
  const facts = {
    'link_flap.count': String(count),
    'link_flap.down_s': String(downMs / 1000),
    'link_flap.up_s': String(upMs / 1000),
    'link_flap.server_ip': serverIps.join(','),
  };
  return { machine: m.name, kind: 'link-flap', bootIdBefore, bootIdAfter, requestedAt, backAt, marks, facts };
}

/** The interface `ip -o route get <ip>` names (`... dev eth1 src ...`). Pure. */
export function parseRouteDev(text: string): string | undefined {
  return /\bdev\s+(\S+)/.exec(text)?.[1];
}

/**
 * tc commands that put (`add`) or remove (`del`) the loss on `dev`: a prio qdisc with a fourth band no priomap entry
 * uses, netem on that band, and a u32 filter per server address into it, so only the traffic toward the servers
 * is hit (SSH and everything else keep the default bands). Pure.
 */
export function netemCommands(
  dev: string,
  serverIps: readonly string[],
  op: 'add' | 'del',
  o: { lossPercent: number; delayMs: number },
): string[] {
  if (!/^[A-Za-z0-9_.@-]+$/.test(dev))
    throw new HarnessError(`link-loss: not an interface name: ${JSON.stringify(dev)}`);
  const q = (argv: (string | number)[]) => argv.map((a) => quote(String(a))).join(' ');
  if (op === 'del') return [q(['tc', 'qdisc', 'del', 'dev', dev, 'root'])];
  for (const ip of serverIps)
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) throw new HarnessError(`link-loss: not an IPv4 address: ${ip}`);
  const netem = ['netem', 'loss', `${o.lossPercent}%`, ...(o.delayMs ? ['delay', `${o.delayMs}ms`] : [])];
  return [
    q(['tc', 'qdisc', 'replace', 'dev', dev, 'root', 'handle', '1:', 'prio', 'bands', 4]),
    q(['tc', 'qdisc', 'add', 'dev', dev, 'parent', '1:4', 'handle', '40:', ...netem]),
    ...serverIps.map((ip) =>
      q([
        'tc',
        'filter',
        'add',
        'dev',
        dev,
        'parent',
        '1:0',
        'protocol',
        'ip',
        'prio',
        4,
        'u32',
        'match',
        'ip',
        'dst',
        `${ip}/32`,
        'flowid',
        '1:4',
      ]),
    ),
  ];
}

interface LossOptions extends FaultOptions {
  lossPercent: number;
  delayMs: number;
  forMs: number;
}

/**
 * Loss and delay on the machine's traffic toward `serverIps` for `forMs`, on the interface its route to them takes,
 * then removed; afterwards no netem qdisc may be left on it.
 */
export async function linkLoss(m: Rebootable, serverIps: readonly string[], o: LossOptions): Promise<RebootRecord> {
  const { deadline, forMs } = o;
  const byDev = new Map<string, string[]>();
  for (const ip of serverIps) {
    const route = await rootSh(m, `ip -o route get ${quote(ip)}`, deadline, 'the route to the server');
    const dev = parseRouteDev(route);
    if (!dev) throw new HarnessError(`link-loss on ${m.name}: no interface in \`ip route get ${ip}\`: ${route.trim()}`);
    byDev.set(dev, [...(byDev.get(dev) ?? []), ip]);
  }
  const add = [...byDev].flatMap(([dev, ips]) => netemCommands(dev, ips, 'add', o));
  const del = [...byDev.keys()].flatMap((dev) => netemCommands(dev, [], 'del', o));
  const bootIdBefore = await m.bootId({ deadline });
  await scheduleHeal(m, LOSS_HEAL_UNIT, del, forMs, deadline);
  const requestedAt = Date.now();
  await rootSh(m, add.join(' && '), deadline, 'link-loss');
  const devs = [...byDev.keys()].join(',');
  const detail = `netem loss ${o.lossPercent}% delay ${o.delayMs} ms on ${devs} toward ${serverIps.join(',')}`;
  const marks: FaultMark[] = [{ atMs: requestedAt, label: 'link loss on', detail }];
  // Note: a deliberate hold (the length of the loss under test), not a poll
  await sleep(forMs, deadline);
  await rootSh(
    m,
    `${del.join('; ')}; systemctl stop ${LOSS_HEAL_UNIT}.timer 2>/dev/null; true`,
    deadline,
    'remove the link loss',
  );
  const left = await rootSh(m, `tc qdisc show`, deadline, 'tc qdisc show');
  const netem = left
    .split('\n')
    .filter((l) => /\bnetem\b/.test(l) && [...byDev.keys()].some((d) => l.includes(` dev ${d} `)));
  if (netem.length)
    throw new HarnessError(`remove the link loss on ${m.name}: a netem qdisc is still there:\n${netem.join('\n')}`);
  const backAt = Date.now();
  marks.push({
    atMs: backAt,
    label: 'link loss removed',
    detail: `after ${((backAt - requestedAt) / 1000).toFixed(1)} s`,
  });
  const bootIdAfter = await m.bootId({ deadline });
  const facts = {
    'link_loss.percent': String(o.lossPercent),
    'link_loss.delay_ms': String(o.delayMs),
    'link_loss.interface': devs,
    'link_loss.server_ip': serverIps.join(','),
  };
  return { machine: m.name, kind: 'link-loss', bootIdBefore, bootIdAfter, requestedAt, backAt, marks, facts };
}

/** Cut the leader off every other machine of `peerIps` (all traffic) for `forMs`, then heal. */
export async function leaderPartition(
  m: Rebootable,
  peerIps: readonly string[],
  forMs: number,
  o: FaultOptions,
): Promise<RebootRecord> {
  const cut = (op: '-I' | '-D') => peerIps.flatMap((ip) => dropCommands(ip, op, LEADER_TAG));
  const r = await holdCut(m, {
    cut: cut('-I'),
    heal: cut('-D'),
    tag: LEADER_TAG,
    healUnit: LEADER_HEAL_UNIT,
    forMs,
    what: 'the leader partition',
    cutMark: {
      label: 'leader partition: the leader cut off every other machine',
      detail: `iptables DROP to/from ${peerIps.join(',')} for ${(forMs / 1000).toFixed(0)} s`,
    },
    healLabel: 'leader partition healed',
    deadline: o.deadline,
  });
  const facts = { 'leader_partition.seconds': r.seconds, 'leader_partition.peers': peerIps.join(',') };
  return { ...r.record, kind: 'leader-partition', facts };
}
