// The docker variant's image, built inside the client VM: the lab reaches no registry (neither Docker Hub for the
// task nor registry.k8s.io for Nomad's pause container), so one local image from the box's static busybox serves
// both. Its default command is a pause loop (what Nomad's infra container runs: the client config's infra_image);
// the job overrides the command with busybox httpd. Script building is pure; running it is one SSH command.
import type { Machine } from '../model/lab.js';
import type { Deadline } from '../time/deadlines.js';
import { HarnessError } from '../errors.js';
import { quote } from '../shell/quote.js';
import { waitFor } from '../time/wait-for.js';

/** The image's reference; must match jobs/bridge-docker-http.nomad.hcl and infra_image in vms/templates/client.hcl. */
export const DOCKER_IMAGE = 'nomad-reboot-harness/busybox:local';
/** The Docker box built by `vms/build-box.ts --docker`. */
export const DOCKER_BOX = 'nomad-reboot-harness/bookworm-docker';
/** What the image's index.html says (the page busybox httpd serves; recognisable when read by hand). */
export const INDEX_TEXT = 'nomad-reboot-harness docker task';

/** Exit codes of the script that name what the box lacks (a clear error instead of a shell message). */
export const NO_DOCKER = 41;
export const NO_STATIC_BUSYBOX = 42;

/**
 * The default command: PID 1 of a container gets no default signal handlers, so the loop traps TERM/INT and exits
 * (docker stop returns at once instead of after its 10 s kill timeout); sleep runs as a child so the trap fires.
 */
export const PAUSE_CMD = [
  '/bin/busybox',
  'sh',
  '-c',
  "trap 'exit 0' TERM INT; while :; do /bin/busybox sleep 3600 & wait $!; done",
];

/** The root shell script that imports the image from a static busybox and prints its ID on the last line. Pure. */
export function imageBuildScript(image: string = DOCKER_IMAGE): string {
  const change = `CMD ${JSON.stringify(PAUSE_CMD)}`;
  return [
    'set -eu',
    `command -v docker >/dev/null || { echo 'docker is not installed in this box' >&2; exit ${NO_DOCKER}; }`,
    'bb=$(command -v busybox || true)',
    // ldd fails on a static binary ("not a dynamic executable"): a dynamic one would not run in an empty image
    `if [ -z "$bb" ] || ldd "$bb" >/dev/null 2>&1; then echo "no static busybox (\${bb:-none}); the Docker box has busybox-static" >&2; exit ${NO_STATIC_BUSYBOX}; fi`,
    'd=$(mktemp -d)',
    'trap \'rm -rf "$d"\' EXIT',
    'mkdir -p "$d/bin" "$d/www" "$d/tmp"',
    'cp "$bb" "$d/bin/busybox"',
    'for a in sh sleep httpd; do ln -s busybox "$d/bin/$a"; done',
    `printf '%s\\n' ${quote(INDEX_TEXT)} > "$d/www/index.html"`,
    `tar -C "$d" -c . | docker import --change ${quote(change)} - ${quote(image)} >/dev/null`,
    `docker image inspect --format '{{.Id}}' ${quote(image)}`,
  ].join('\n');
}

interface DockerImageInfo {
  /** `docker version` of the daemon, e.g. "20.10.24+dfsg1" */
  serverVersion: string;
  /** the image ID (sha256:…) */
  imageId: string;
}

/** Wait for dockerd on the machine (it may still be starting after boot), then build the image; returns what was built. */
export async function buildDockerImage(machine: Machine, box: string, d: Deadline): Promise<DockerImageInfo> {
  const has = await machine.exec("sh -c 'command -v docker'", { deadline: d });
  if (has.code !== 0) throw noDocker(machine, box);
  const serverVersion = await waitFor(
    `dockerd on ${machine.name}`,
    async (dd) => {
      const r = await machine.exec('docker version --format {{.Server.Version}}', { deadline: dd, sudo: true });
      return r.code === 0 && r.stdout.trim()
        ? { done: true, value: r.stdout.trim() }
        : { done: false, reason: (r.stderr || r.stdout).trim().split('\n').at(-1) || `exit ${r.code}` };
    },
    { deadline: d, intervals: [1000, 2000] },
  );
  const r = await machine.exec(`sh -c ${quote(imageBuildScript())}`, { deadline: d, sudo: true });
  if (r.code === NO_DOCKER) throw noDocker(machine, box);
  if (r.code !== 0)
    throw new HarnessError(
      `${machine.name}: building the image ${DOCKER_IMAGE} failed (exit ${r.code}): ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`,
    );
  const imageId = r.stdout.trim().split('\n').at(-1) ?? '';
  if (!/^sha256:[0-9a-f]{64}$/.test(imageId))
    throw new HarnessError(
      `${machine.name}: docker image inspect ${DOCKER_IMAGE} printed ${JSON.stringify(imageId)}, not an image ID`,
    );
  return { serverVersion, imageId };
}

function noDocker(machine: Machine, box: string): HarnessError {
  // Note: an infrastructure error, not a usage one: the VMs exist by now (the default box is refused before that).
  return new HarnessError(`${machine.name}: the box ${box} has no Docker, which --driver docker needs`, {
    hint: `build the Docker box with \`npm run harness -- setup --docker\` and run with --box ${DOCKER_BOX}`,
  });
}
