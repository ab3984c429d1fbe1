// Test helper for the Nomad API stand-in (not Nomad): the bridge-mode exec job of
// nomad-reference §8 and a one-call "parse, register, wait running" for integration tests.
import type { ApiAllocation } from '../../../lib/nomad/api-types.js';
import type { Nomad } from '../../../lib/nomad/client.js';
import { waitForAllocRunning } from '../../../lib/nomad/wait.js';
import { deadlineIn } from '../../../lib/time/deadlines.js';

/** The reboot scenario's job shape: bridge network, port "http" to 8080, exec driver, no reschedule. */
export const WEB_JOB_HCL = `variable "port" {
  type    = number
  default = 8080
}

job "web" {
  type = "service"
  group "web" {
    count = 1
    network {
      mode = "bridge"
      port "http" { to = var.port }
    }
    reschedule {
      attempts  = 0
      unlimited = false
    }
    task "web" {
      driver = "exec" # bridge works with exec
      config {
        command = "/usr/bin/python3"
        args    = ["-m", "http.server", "\${var.port}"]
      }
    }
  }
}
`;

/** Parse and register WEB_JOB_HCL through the real client, then wait for its alloc to run. */
export async function deployWeb(nomad: Nomad, timeoutMs = 5000): Promise<ApiAllocation> {
  const job = await nomad.parseJob(WEB_JOB_HCL);
  await nomad.registerJob(job, WEB_JOB_HCL);
  return waitForAllocRunning(nomad, job.ID, { deadline: deadlineIn(timeoutMs) });
}
