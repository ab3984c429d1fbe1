# An example for `--job` on rolling-reboot and server-reboot: a service whose ephemeral disk is kept (sticky: a
# replacement on the same node takes it over; migrate: a replacement on another node gets it copied). Its task writes a
# marker once, the ID of the first alloc of its place, to alloc/data/reboot-harness-marker (the harness's convention),
# then serves HTTP. Judged by volume-data: after the fault each place finds that marker where Nomad promises it.
job "sticky-disk" {
  datacenters = ["*"]
  type        = "service"

  group "web" {
    count = 2

    # size must exceed the tasks' log storage (Nomad's default logs: 10 files of 10 MB), or Nomad refuses the job
    ephemeral_disk {
      sticky  = true
      migrate = true
      size    = 150
    }

    network {
      mode = "bridge"
      port "http" {
        to = 8080
      }
    }

    task "web" {
      driver = "exec"

      config {
        command = "/bin/sh"
        args = [
          "-c",
          "m=\"$NOMAD_ALLOC_DIR/data/reboot-harness-marker\"; test -s \"$m\" || echo \"$NOMAD_ALLOC_ID\" > \"$m\"; exec /usr/bin/python3 -m http.server 8080",
        ]
      }

      resources {
        cpu    = 100
        memory = 128
      }
    }
  }
}
