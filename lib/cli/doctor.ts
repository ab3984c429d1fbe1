// Preflight (`reboot-harness doctor`): is this host ready for a lab? Each missing piece comes with the command that fixes it.
import { existsSync } from 'node:fs';
import { readFile, readdir, statfs, access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { DEFAULTS } from '../config/schema.js';
import { pathProblem } from './paths.js';
import { commandLine, releasesWords } from '../shell/command-line.js';
import { quote, raw } from '../shell/quote.js';
import { vagrantInfo } from '../vagrant/info.js';
import { runCommand, ANY_EXIT_CODE, type RunCommand } from '../exec/run.js';
import { inspectNomadBinary, probeNomadVersion, VERSION_PROBE_MS } from '../builds/binary.js';
import { cachedRelease } from '../builds/release.js';
import { parseBuildSpec } from '../builds/spec.js';
import { deadlineIn, type Deadline } from '../time/deadlines.js';
import { DOCKER_BOX } from '../cluster/docker-image.js';
import { alivePid, currentNetns } from '../lab/host/host.js';
import { describeMode, groupGid, KVM_DEVICE, kvmDeviceFix } from '../lab/kvm/kvm-device.js';
import type { ChooseDriver, DriverSetting } from '../lab/kvm/accel.js';
import { type Accel, detectAccel, memAvailableBytes, toolDown } from './doctor-host.js';

/** Schema id of `doctor --json`: every --json document is one object with its schema id, none a bare list. */
export const DOCTOR_JSON_SCHEMA = 'nomad-reboot-harness/doctor@1';

/** The document `doctor --json` prints: whether every prerequisite is met, and each check. */
export function doctorDocument(items: readonly DoctorItem[]): { schema: string; ok: boolean; checks: DoctorItem[] } {
  return { schema: DOCTOR_JSON_SCHEMA, ok: items.every((i) => i.ok), checks: [...items] };
}

export interface DoctorItem {
  name: string;
  ok: boolean;
  detail: string;
  /** the command (or action) that fixes it; empty when ok */
  fix: string;
}

/** The box vms/build-box.ts builds. */
const DEFAULT_BOX = 'nomad-reboot-harness/bookworm';
/** One lab (2 VMs) needs about 600 MB of images plus logs; 3 GiB leaves room for a box rebuild's image step. */
const MIN_DISK_BYTES = 3 * 1024 ** 3;
/** Two VMs of 768 MB plus QEMU's TCG cache (~570 MB RSS each under emulation). */
const MIN_MEM_BYTES = 2 * 1024 ** 3;
/**
 * `reboot-harness setup` with the namespace doctor checked, when it is not the default: setup also starts libvirtd,
 * and pasted bare after `doctor --netns mylab` it started it in nrh-lab, where doctor then found the lab's libvirtd
 * running in the wrong namespace (Q653, the package fixes Q568 had not reached).
 */
const setupFix = (netnsWords: readonly string[]) =>
  `${commandLine(['reboot-harness', 'setup', ...netnsWords])}   (or: sudo npx tsx vms/setup-host.ts)`;

/**
 * The fix of a box that is not added: setup builds the harness's box (with --docker the Docker box too) and adds
 * nothing else, so a bare `reboot-harness setup` left the Docker box or a public one missing (Q654).
 */
function boxFix(box: string, netnsWords: readonly string[]): string {
  if (box === DEFAULT_BOX)
    return `${commandLine(['reboot-harness', 'setup', ...netnsWords])}   (or: sudo npx tsx vms/build-box.ts; an offline debootstrap build, about 3 min)`;
  if (box === DOCKER_BOX)
    return `${commandLine(['reboot-harness', 'setup', '--docker', ...netnsWords])}   (or: sudo npx tsx vms/build-box.ts --docker; an offline debootstrap build, about 3 min)`;
  return `${commandLine(['vagrant', 'box', 'add', box, '--provider', 'libvirt'])} (setup builds only the harness's own boxes: ${DEFAULT_BOX}, and ${DOCKER_BOX} with --docker)`;
}

const gib = (n: number) => `${(n / 1024 ** 3).toFixed(1)} GiB`;
const item = (name: string, ok: boolean, detail: string, fix = ''): DoctorItem => ({
  name,
  ok,
  detail,
  fix: ok ? '' : fix,
});

interface DoctorOptions {
  deadline: Deadline;
  /** where runs keep their Vagrant dirs and reports */
  workDir: string;
  nomadBinary?: string;
  /**
   * a Nomad build that is not a file yet (a release version not downloaded, a source tree not built): what the first
   * run will do, as an item; takes the place of nomadBinary
   */
  nomadPending?: DoctorItem;
  /** each VM's memory (lab.memory_mb): the free memory needed is two VMs of it, at least MIN_MEM_BYTES */
  memoryMb?: number;
  box?: string;
  netns?: string;
  run?: RunCommand;
  /** lab.libvirt_driver and the chooser that resolves it (auto: the KVM probe or its cached answer) */
  libvirtDriver?: { setting: DriverSetting; choose: ChooseDriver };
  /** the memory the configured topology needs (lib/config/topology.ts labMemoryMb), and what it is, e.g. "1+2" */
  labMemory?: { bytes: number; topology: string };
  /** where libvirtd writes its pid (tests give their own) */
  libvirtdPidFile?: string;
  /** each tool's own bound (TOOL_PROBE_MS; tests give a short one) */
  toolProbeMs?: number;
}

/**
 * Each tool (vagrant's three questions, qemu, virsh, ip) answers within this, not within doctor's whole deadline: one
 * hung vagrant took all of it, and qemu and virsh, never run, were failed as "timed out" with an install fix (Q352).
 */
const TOOL_PROBE_MS = 15_000;

/** Probe everything a lab needs and return one item per requirement (never throws for a missing piece). */
export async function runDoctor(opts: DoctorOptions): Promise<DoctorItem[]> {
  const { deadline, workDir, nomadBinary, box = DEFAULT_BOX, netns = DEFAULTS.lab.netns, run = runCommand } = opts;
  const sh = async (file: string, args: string[]) => {
    try {
      const r = await run(file, args, {
        deadline: deadlineIn(opts.toolProbeMs ?? TOOL_PROBE_MS, deadline),
        allowedCodes: ANY_EXIT_CODE,
        env: { VAGRANT_CHECKPOINT_DISABLE: '1' },
      });
      return { code: r.code, out: `${r.stdout}${r.stderr}` };
    } catch (err) {
      // a tool that is not there is said so, not as Node's indented spawn error; any other error on one line
      const message = (err instanceof Error ? err.message : String(err)).replace(/\n\s*/g, ': ');
      const missing = /spawn (\S+) ENOENT/.exec(message)?.[1];
      return { code: -1, out: missing ? `${missing} is not installed (not found on PATH)` : message };
    }
  };
  const text = (p: string) => readFile(p, 'utf8').catch(() => '');
  const items: DoctorItem[] = [];
  // Note: a command a fix names runs against the namespace doctor checked: `reboot-harness setup` pasted after
  // `doctor --netns mylab` started libvirtd in nrh-lab, and `sudo reboot-harness doctor` checked that one (Q568)
  const netnsWords = netns === DEFAULTS.lab.netns ? [] : ['--netns', netns];
  const SETUP = setupFix(netnsWords);

  const vagrant = await vagrantInfo({ deadline: deadlineIn(opts.toolProbeMs ?? TOOL_PROBE_MS, deadline), run });
  const hasVagrant = vagrant.version !== undefined;
  // Note: a vagrant that ran and failed is not "not found", and what only it can tell (plugins, boxes) was not checked.
  const vagrantDown = vagrant.missing
    ? 'vagrant not found'
    : `vagrant --version failed (${vagrant.error ?? 'no output'})`;
  const unchecked = 'not checked: vagrant did not answer';
  items.push(
    item(
      'vagrant',
      hasVagrant,
      hasVagrant ? vagrant.version! : vagrantDown,
      vagrant.missing || hasVagrant
        ? `${SETUP}; or: apt-get install -y vagrant`
        : 'run vagrant --version and fix what it says (a broken Ruby or plugin: vagrant plugin repair)',
    ),
  );
  const lv = /vagrant-libvirt \(([^,)]+)/.exec(vagrant.plugins);
  items.push(
    item(
      'vagrant-libvirt plugin',
      !!lv,
      lv ? `vagrant-libvirt ${lv[1]}` : hasVagrant ? 'plugin not installed' : unchecked,
      hasVagrant ? `${SETUP}; or: apt-get install -y vagrant-libvirt` : 'fix vagrant first',
    ),
  );

  const qemu = await sh('qemu-system-x86_64', ['--version']);
  items.push(
    item(
      'qemu',
      qemu.code === 0,
      qemu.code === 0 ? (qemu.out.split('\n')[0] ?? '').trim() : toolDown('qemu-system-x86_64', qemu),
      `${SETUP}; or: apt-get install -y qemu-system-x86 qemu-utils`,
    ),
  );

  const libvirtdPid = await alivePid(opts.libvirtdPidFile ?? '/run/libvirtd.pid');
  const virsh = await sh('virsh', ['-c', 'qemu:///system', 'version']);
  const lvVer = /Running hypervisor: (.*)/.exec(virsh.out)?.[1] ?? /Using library: (.*)/.exec(virsh.out)?.[1];
  items.push(
    item(
      'libvirtd reachable',
      virsh.code === 0,
      virsh.code === 0
        ? `qemu:///system answers (${lvVer ?? 'version unknown'})`
        : virsh.out.trim().split('\n').pop()?.trim() || `virsh -c qemu:///system version exited ${virsh.code}`,
      // Note: a virsh that is not installed tells nothing of libvirtd: the fix is the client, not a daemon start (Q526)
      virsh.code === -1 && /not found/.test(toolDown('virsh', virsh))
        ? `${SETUP}; or: apt-get install -y libvirt-clients libvirt-daemon-system`
        : netns
          ? `${commandLine(['reboot-harness', 'setup', ...netnsWords])}   (starts virtlogd + libvirtd inside netns "${netns}"); or: ${commandLine(['ip', 'netns', 'add', netns, raw('&&'), 'ip', 'netns', 'exec', netns, 'virtlogd', '-d', raw('&&'), 'ip', 'netns', 'exec', netns, 'libvirtd', '-d'])}`
          : 'on the host network (lab.netns ""): systemctl start libvirtd; or: virtlogd -d && libvirtd -d',
    ),
  );

  const inNs = currentNetns();
  const identify = libvirtdPid === undefined ? undefined : await sh('ip', ['netns', 'identify', String(libvirtdPid)]);
  // Note: an ip that failed (or is not on PATH) tells nothing: its error is no namespace name, nor the fix's --netns
  const lvNs = identify?.code === 0 ? identify.out.trim().split('\n')[0] || '' : undefined;
  // The lab's VMs live in the network of the namespace libvirtd runs in: it must be the one lab.netns names.
  const where = (ns: string) => (ns ? `netns ${ns}` : 'the host namespace');
  const nsOk = lvNs === undefined || lvNs === netns;
  const stopIt = lvNs
    ? `reboot-harness destroy --host stops the one the harness started in ${lvNs}; or ${commandLine(['kill', libvirtdPid ?? raw('<pid>')])}`
    : `${commandLine(['kill', libvirtdPid ?? raw('<pid>')])} or systemctl stop libvirtd libvirtd.socket`;
  if (identify && identify.code !== 0)
    items.push(
      item(
        'network namespace',
        false,
        `could not tell which netns libvirtd (pid ${libvirtdPid}) runs in: ${identify.out.trim().split('\n').pop()?.trim() || `ip exited ${identify.code}`}`,
        // Q313: an ip that is there and failed (not root) is no missing iproute2 (and a mute virsh no empty detail)
        identify.code === -1 && /ENOENT|not found|not installed/i.test(identify.out)
          ? 'install iproute2 (the ip command) and run doctor again'
          : `run ${commandLine(['ip', 'netns', 'identify', libvirtdPid ?? raw('<pid>')])} and fix what it says (as a user who may read libvirtd's namespace: ${commandLine(['sudo', 'reboot-harness', 'doctor', ...netnsWords])})`,
      ),
    );
  else
    items.push(
      item(
        'network namespace',
        nsOk,
        `this process runs in ${where(inNs ?? '')}; ${lvNs === undefined ? 'libvirtd not running' : `libvirtd (pid ${libvirtdPid}) runs in ${where(lvNs)}`}; the lab needs it in ${where(netns)} (lab.netns)`,
        // Note: the netns it runs in first: stopping a libvirtd another run's lab uses would cut that lab off, and a
        // mistyped --netns is the likelier cause
        `use ${commandLine(['--netns', lvNs ?? ''])} (where that libvirtd runs); or, to put the lab in ${where(netns)}: stop that libvirtd (${stopIt}), then ${netns ? commandLine([raw(`HARNESS_NETNS=${quote(netns)}`), 'reboot-harness', 'setup']) : 'systemctl start libvirtd'}`,
      ),
    );

  const devKvm = await access('/dev/kvm').then(
    () => true,
    () => false,
  );
  const modules = await readdir('/sys/module').catch(async () =>
    (await text('/proc/modules')).split('\n').map((l) => l.split(' ')[0] ?? ''),
  );
  const accel = detectAccel(await text('/proc/cpuinfo'), devKvm, modules);
  items.push(item('virtualization', true, accel.detail));
  const kvmStat = devKvm ? await stat(KVM_DEVICE).catch(() => undefined) : undefined;
  if (kvmStat) {
    const dev = { uid: kvmStat.uid, gid: kvmStat.gid, mode: kvmStat.mode & 0o777 };
    const kvmGid = groupGid(await text('/etc/group'), 'kvm');
    const names = { 0: 'root', ...(kvmGid === undefined ? {} : { [kvmGid]: 'kvm' }) };
    const fix = kvmDeviceFix(dev, kvmGid);
    // Note: never a failure: the lab host applies udev's default itself before it starts libvirtd (lib/lab/host/host.ts)
    items.push(
      item(
        '/dev/kvm for libvirt',
        true,
        fix
          ? `${describeMode(dev, names)}: no udev rule ran; the next run sets ${describeMode(fix, names)} (udev's default) before it starts libvirtd, else libvirt would probe QEMU again before every domain start (12 s each here)`
          : `${describeMode(dev, names)}: libvirt's QEMU user (group kvm) can open it`,
      ),
    );
  }
  if (opts.libvirtDriver) items.push(await driverItem(opts.libvirtDriver, box, deadline, accel));

  const boxes = { out: vagrant.boxes };
  const hasBox = boxes.out.split('\n').some((l) => l.startsWith(`${box} `) && l.includes('libvirt'));
  const boxDetail = hasBox
    ? `${box} (libvirt) is added`
    : hasVagrant
      ? `${box} not found in \`vagrant box list\``
      : unchecked;
  items.push(item('box', hasBox, boxDetail, hasVagrant ? boxFix(box, netnsWords) : 'fix vagrant first'));

  if (opts.nomadPending) items.push(opts.nomadPending);
  else if (nomadBinary !== undefined) items.push(await nomadBuildItem(nomadBinary, deadline, run));

  for (const dir of ['/var/lib/libvirt', workDir]) items.push(await diskItem(dir));
  const mem = memAvailableBytes(await text('/proc/meminfo'));
  // The configured topology's need when known (every VM with its QEMU overhead), else two VMs of lab.memory_mb.
  const vms = opts.labMemory?.bytes ?? (opts.memoryMb === undefined ? 0 : 2 * opts.memoryMb * 1024 ** 2);
  const need = Math.max(MIN_MEM_BYTES, vms);
  const why =
    vms < MIN_MEM_BYTES
      ? ''
      : opts.labMemory
        ? ` for a ${opts.labMemory.topology} lab`
        : `: 2 VMs of ${opts.memoryMb} MiB`;
  const memText = mem === undefined ? 'MemAvailable unknown' : `${gib(mem)} available (need ${gib(need)}${why})`;
  items.push(
    item(
      'free memory',
      mem !== undefined && mem >= need,
      memText,
      'stop other VMs or processes, run fewer machines (--servers/--clients), or give each VM less memory ' +
        '(--memory <MiB> or lab.memory_mb; 512 is the least)',
    ),
  );
  return items;
}

/**
 * What doctor says of `--nomad <spec>`, which it takes as a run does: a path is inspected; a release version is
 * inspected when the cache has it, else named as what the first run will download and verify; a source tree must
 * exist (the first run builds it). Nothing is downloaded or built here.
 */
export async function doctorNomadSpec(
  text: string,
  o: { field: string; cwd: string; home: string; cacheRoot: string; releasesUrl: string; releasesKey?: string },
): Promise<{ path: string } | { item: DoctorItem }> {
  const exists = (p: string) => existsSync(resolve(o.cwd, p));
  const parsed = parseBuildSpec(text, o.field, { exists, home: o.home });
  if ('problem' in parsed)
    return { item: item('nomad build', false, `${text}: ${parsed.problem.message}`, parsed.problem.fix) };
  const { spec } = parsed;
  if (spec.kind === 'path') return { path: resolve(o.cwd, spec.path) };
  // Note: quoted (a source tree at "src dir" was two specs pasted, Q425), with the releases site and key (Q601)
  const now = `or now: ${commandLine(['reboot-harness', 'build', text, ...releasesWords(spec.kind, o)])}`;
  if (spec.kind === 'release') {
    const hit = spec.version === 'latest' ? undefined : await cachedRelease(spec.version, o.cacheRoot, o.releasesUrl);
    if (hit) return { path: hit };
    const detail = `${text}: release ${spec.version}, not in the cache yet: the first run downloads it from ${o.releasesUrl} and verifies its signature (${now})`;
    return { item: item('nomad build', true, detail) };
  }
  const dir = resolve(o.cwd, spec.dir);
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  const detail = isDir
    ? `${text}: source tree ${dir}${spec.ref ? ` at ${spec.ref}` : ''}: the first run builds it like a release (${now})`
    : `${text}: ${dir} is not a directory`;
  return { item: item('nomad build', isDir, detail, 'give git:<dir of a hashicorp/nomad checkout>[@<ref>]') };
}

/** The Nomad build: a Linux x86-64 ELF that answers `version` as a Nomad agent (not any program, e.g. /bin/true). */
async function nomadBuildItem(path: string, deadline: Deadline, run: RunCommand): Promise<DoctorItem> {
  const fix = 'build or download a linux/amd64 nomad (e.g. make pkg/linux_amd64/nomad) and pass its path';
  // Note: opening a named pipe waits for a writer (inspectNomadBinary opens before it looks): doctor waited for ever
  if ((await stat(path).catch(() => undefined))?.isFIFO())
    return item('nomad binary', false, `${path}: a named pipe (FIFO), not a regular file`, fix);
  const info = await inspectNomadBinary(path);
  if (!info.ok) return item('nomad binary', false, info.reason, fix);
  const probed = await probeNomadVersion(path, { deadline: deadlineIn(VERSION_PROBE_MS, deadline), run });
  if ('message' in probed) return item('nomad binary', false, probed.message, fix);
  const rev = probed.revision ? ` (revision ${probed.revision})` : '';
  return item('nomad binary', true, `${path}: Nomad v${probed.version}${rev}, ${info.reason.slice(path.length + 2)}`);
}

/** The directory itself or, when it does not exist yet (a run creates it), its nearest existing parent. */
export async function nearestExisting(dir: string): Promise<string | undefined> {
  for (let d = resolve(dir); ; d = dirname(d)) {
    const isDir = await stat(d).then(
      (st) => st.isDirectory(),
      () => false,
    );
    if (isDir) return d;
    if (d === dirname(d)) return undefined;
  }
}

/** Free disk where `dir` is or will be created: a run makes the work dir itself, so a missing one is not a problem. */
export async function diskItem(dir: string): Promise<DoctorItem> {
  // Note: the run's own check of the work dir first (a kernel file system, a file in the way, no write access): doctor
  // must not pass what a run refuses
  const refused = await pathProblem({ field: 'lab.work_dir (--work-dir)', value: dir, kind: 'dir' }, process.cwd());
  if (refused) return item(`free disk ${dir}`, false, `${dir} ${refused.message}`, refused.fix);
  const where = await nearestExisting(dir);
  const st = where === undefined ? undefined : await statfs(where).catch(() => undefined);
  const free = st ? st.bavail * st.bsize : undefined;
  const unreadable = `check that ${dir} (or a parent) is readable by this user`;
  if (free === undefined) return item(`free disk ${dir}`, false, `cannot read the filesystem of ${dir}`, unreadable);
  const note = where === dir ? '' : ` on ${where} (${dir} does not exist yet; a run creates it)`;
  return item(
    `free disk ${dir}`,
    free >= MIN_DISK_BYTES,
    `${gib(free)} free${note} (need ${gib(MIN_DISK_BYTES)})`,
    `free space on the filesystem of ${where}, or point lab.work_dir (--work-dir) at a larger one`,
  );
}

/** The libvirt driver a run would use and why (never a failure: emulation works, only slower). */
export async function driverItem(
  o: NonNullable<DoctorOptions['libvirtDriver']>,
  box: string,
  d: Deadline,
  accel?: Accel,
): Promise<DoctorItem> {
  try {
    const c = await o.choose(o.setting, box, d);
    const detail = `${c.driver} (lab.libvirt_driver: ${o.setting}, decided by ${c.source}): ${c.reason}`;
    // Note: kvm where the virtualization line found that KVM cannot boot the box (PVM only, no vmx/svm, no /dev/kvm)
    if (c.driver === 'kvm' && accel?.driver === 'qemu')
      return item(
        'libvirt driver',
        false,
        `${detail}; but ${accel.detail.replace(/^software emulation \(TCG\): /, '').replace(/; VMs boot.*$/, '')}, so the box cannot boot with kvm`,
        'set lab.libvirt_driver: qemu (or auto) in harness.yaml, or HARNESS_LIBVIRT_DRIVER=qemu',
      );
    return item('libvirt driver', true, detail);
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    const fix = 'set lab.libvirt_driver: qemu (or kvm) in harness.yaml';
    return item('libvirt driver', false, `could not decide for ${o.setting}: ${why}`, fix);
  }
}
