# An example for `--job` on rolling-reboot and server-reboot: a batch job whose two allocs run for 20 minutes, long
# enough that the fault hits them running. Judged by batch-outcome (restored in place, or rescheduled as its
# reschedule policy says; under a drain which of Nomad's behaviours it showed: failed and rescheduled on 1.10.3 to
# 1.10.5, left to complete in place from 1.11.0) and no-extra-alloc (never a second alloc beside a running or
# completed one, GH-28018). Under `--reboot executor-kill` its task must not end complete with exit code 0 (GH-25453).
job "batch-sleep" {
  datacenters = ["*"]
  type        = "batch"

  group "work" {
    count = 2

    # Nomad's batch default, written out: one reschedule in 24 h; attempts = 0 makes a failure final
    reschedule {
      attempts  = 1
      interval  = "24h"
      delay     = "5s"
      unlimited = false
    }

    task "work" {
      driver = "exec"

      config {
        command = "/bin/sleep"
        args    = ["1200"]
      }

      resources {
        cpu    = 50
        memory = 32
      }
    }
  }
}
