# The upgrade-in-place job: the bridge exec HTTP group of bridge-exec-http.nomad.hcl with a variable count,
# so the scenario can start 3 allocs on build A and scale to 6 after the client runs build B (GH-25093).
variable "count" {
  type    = number
  default = 3
}

job "bridge-exec-http-multi" {
  datacenters = ["*"]
  type        = "service"

  group "web" {
    count = var.count

    network {
      mode = "bridge"
      port "http" {
        to = 80
      }
    }

    # A failed alloc stays visible instead of being replaced quietly.
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
        memory = 64
      }
    }
  }
}
