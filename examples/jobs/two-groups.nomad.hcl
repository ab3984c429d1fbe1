# An example for `--job`: two bridge-mode groups, one serving HTTP ("http" port: probed with GET) and one a plain TCP
# echo server ("echo" port: probed with a TCP connect, as its group meta says). Every alloc of both groups is judged.
job "bridge-two-groups" {
  datacenters = ["*"]
  type        = "service"

  group "web" {
    count = 1

    network {
      mode = "bridge"
      port "http" {
        to = 80
      }
    }

    reschedule {
      attempts  = 0
      unlimited = false
    }

    task "web" {
      driver = "exec"

      config {
        command = "/usr/bin/python3"
        args    = ["-m", "http.server", "80"]
      }

      resources {
        cpu    = 100
        memory = 128
      }
    }
  }

  group "echo" {
    count = 1

    # The harness probes each mapped port: HTTP for labels starting with "http", TCP otherwise; meta says it outright.
    meta {
      reboot_harness_probe_echo = "tcp"
    }

    network {
      mode = "bridge"
      port "echo" {
        to = 9000
      }
    }

    reschedule {
      attempts  = 0
      unlimited = false
    }

    task "echo" {
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
