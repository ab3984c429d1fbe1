# An example for `--job` that gives every whole-alloc check something to judge: one bridge-mode group with two ports
# ("http" served over HTTP, "admin" a TCP echo server), a task per port, a Nomad-native service with a check per port
# (provider = "nomad": no Consul needed), and a template that renders into the task's secrets/ directory (the tmpfs
# that `task-dirs` looks at).
job "bridge-whole-alloc" {
  datacenters = ["*"]
  type        = "service"

  group "web" {
    count = 1

    # The harness probes each mapped port: HTTP for labels starting with "http", TCP otherwise; meta says it outright.
    meta {
      reboot_harness_probe_admin = "tcp"
    }

    network {
      mode = "bridge"
      port "http" {
        to = 80
      }
      port "admin" {
        to = 9000
      }
    }

    # Make a failed restore visible instead of quietly replaced by a new alloc.
    reschedule {
      attempts  = 0
      unlimited = false
    }

    service {
      name     = "whole-alloc-http"
      provider = "nomad"
      port     = "http"

      check {
        name     = "http-root"
        type     = "http"
        path     = "/"
        interval = "5s"
        timeout  = "2s"
      }
    }

    service {
      name     = "whole-alloc-admin"
      provider = "nomad"
      port     = "admin"

      check {
        name     = "admin-tcp"
        type     = "tcp"
        interval = "5s"
        timeout  = "2s"
      }
    }

    task "web" {
      driver = "exec"

      config {
        command = "/usr/bin/python3"
        args    = ["-m", "http.server", "80"]
      }

      # Rendered by the client into secrets/ (a tmpfs of its own while Nomad keeps it one): nothing secret, only
      # something there to lose.
      template {
        destination = "secrets/greeting.txt"
        data        = "alloc {{ env \"NOMAD_ALLOC_ID\" }} task {{ env \"NOMAD_TASK_NAME\" }}\n"
      }

      resources {
        cpu    = 100
        memory = 96
      }
    }

    task "admin" {
      driver = "exec"

      config {
        command = "/usr/bin/python3"
        args    = ["-c", "import socketserver as s\nclass H(s.BaseRequestHandler):\n  def handle(self): self.request.sendall(self.request.recv(64))\ns.ThreadingTCPServer.allow_reuse_address = True\ns.ThreadingTCPServer(('0.0.0.0', 9000), H).serve_forever()\n"]
      }

      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
