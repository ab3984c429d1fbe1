# An example for `--job`: a bridge-mode service whose task runs with the raw_exec driver (no chroot, no isolation of
# its own). Nomad ships raw_exec off; the harness enables it on the lab's clients only because this job uses it (the
# run's fact `client.raw_exec` says so). Judged like an exec task: its processes found and in the alloc's network
# namespace, restarted after the reboot, its port probed.
job "raw-exec" {
  datacenters = ["*"]
  type        = "service"

  group "web" {
    count = 1

    network {
      mode = "bridge"
      port "http" {
        to = 8080
      }
    }

    task "web" {
      driver = "raw_exec"

      config {
        command = "/usr/bin/python3"
        args    = ["-m", "http.server", "8080"]
      }

      resources {
        cpu    = 100
        memory = 128
      }
    }
  }
}
