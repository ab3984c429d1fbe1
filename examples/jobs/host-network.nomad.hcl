# An example for `--job`: a service in host network mode (Nomad's default: no network namespace, no bridge address),
# two allocs serving HTTP on a dynamic host port of the node running each. The harness probes each alloc's host port
# on its own node's address; the bridge-only checks (task-netns) skip its allocs with the reason instead of failing.
job "host-network" {
  datacenters = ["*"]
  type        = "service"

  group "web" {
    count = 2

    network {
      mode = "host"
      port "http" {}
    }

    migrate {
      max_parallel     = 1
      health_check     = "task_states"
      min_healthy_time = "5s"
      healthy_deadline = "3m"
    }

    task "web" {
      driver = "exec"

      config {
        command = "/usr/bin/python3"
        args    = ["-m", "http.server", "${NOMAD_PORT_http}"]
      }

      resources {
        cpu    = 100
        memory = 128
      }
    }
  }
}
