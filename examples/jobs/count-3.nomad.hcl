# An example for `--job`: the shipped bridge exec HTTP job with three allocs (count, a variable: job.vars count = 5 in
# harness.yaml or -var count=5). Every alloc is judged after the reboot. Resources are kept small so three fit a
# client VM of 768 MiB; the README's runs use --memory 1024 for headroom under emulation.
variable "count" {
  type    = number
  default = 3
}

job "bridge-count-3" {
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

    # A failed restore stays visible instead of being replaced quietly.
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
}
