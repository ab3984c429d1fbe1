# An example for `--job` on rolling-reboot and server-reboot: a service that mounts the lab's static host volume
# "reboot-harness" (every lab client declares it: /srv/reboot-harness). Its task writes a marker once per place, the
# ID of the first alloc of that place, to <volume>/<job>.<group>-<index>.marker (the harness's convention), then serves
# HTTP. Judged by volume-data: wherever a place runs on the same node again after the fault (restored, or replaced
# there), it finds its marker; a place moved to another node finds another node's directory (reported, not judged).
job "host-volume" {
  datacenters = ["*"]
  type        = "service"

  group "web" {
    count = 2

    volume "data" {
      type      = "host"
      source    = "reboot-harness"
      read_only = false
    }

    network {
      mode = "bridge"
      port "http" {
        to = 8080
      }
    }

    task "web" {
      driver = "exec"

      volume_mount {
        volume      = "data"
        destination = "/data"
      }

      config {
        command = "/bin/sh"
        args = [
          "-c",
          "m=\"/data/${NOMAD_JOB_NAME}.${NOMAD_GROUP_NAME}-${NOMAD_ALLOC_INDEX}.marker\"; test -s \"$m\" || echo \"$NOMAD_ALLOC_ID\" > \"$m\"; exec /usr/bin/python3 -m http.server 8080",
        ]
      }

      resources {
        cpu    = 100
        memory = 128
      }
    }
  }
}
