# An example for `--job` on rolling-reboot and server-reboot: a system job (a node agent, as log shippers and ingress
# are), one alloc on every client, in host network mode with a port the harness probes on each node. Judged by
# system-allocs: a client not drained restores its alloc in place (system tasks do not wait for the servers); a client
# drained, rebooted and made eligible again runs one again within the bound (GH-27499); untouched clients keep theirs.
job "node-agent" {
  datacenters = ["*"]
  type        = "system"

  group "agent" {
    network {
      port "http" {}
    }

    task "agent" {
      driver = "exec"

      config {
        command = "/usr/bin/python3"
        args    = ["-m", "http.server", "${NOMAD_PORT_http}"]
      }

      resources {
        cpu    = 50
        memory = 64
      }
    }
  }
}
