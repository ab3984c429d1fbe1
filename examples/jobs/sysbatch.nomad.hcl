# An example for `--job` on rolling-reboot and server-reboot: a sysbatch job (a task run once on every client, as a
# node sweep is), running for 20 minutes so the fault hits it running. Judged by system-allocs (each client ran it once)
# and no-extra-alloc (no client ran it twice).
job "node-sweep" {
  datacenters = ["*"]
  type        = "sysbatch"

  group "sweep" {
    task "sweep" {
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
