# The seed job of the reboot scenario: one bridge-mode group, one exec task serving HTTP on port 80
# inside the alloc's network namespace, mapped to a dynamic host port.
job "bridge-exec-http" {
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

    # Make a failed restore visible instead of quietly replaced by a new alloc.
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
        cpu    = 500
        memory = 256
      }
    }
  }
}
