# The rolling-reboot job: one bridge-mode group of `count` allocs serving HTTP on port 80, spread over the clients, and
# a migrate block a drain follows (one alloc at a time, the next once the replacement is healthy), so that with two or
# more clients the service can keep answering while each client is drained and rebooted in turn.
variable "count" {
  type    = number
  default = 2
}

job "bridge-exec-http-spread" {
  datacenters = ["*"]
  type        = "service"

  group "web" {
    count = var.count

    # soft: with fewer clients than allocs some share a client
    spread {
      attribute = "${node.unique.id}"
    }

    migrate {
      max_parallel     = 1
      health_check     = "task_states"
      min_healthy_time = "5s"
      healthy_deadline = "3m"
    }

    network {
      mode = "bridge"
      port "http" {
        to = 80
      }
    }

    task "web" {
      driver = "exec"

      config {
        command = "/usr/bin/python3"
        args    = ["-m", "http.server", "80"]
      }

      resources {
        cpu    = 200
        memory = 128
      }
    }
  }
}
