# An example for `--job` on rolling-reboot and server-reboot (Nomad 1.10 or later): a service that mounts the dynamic
# host volume "harness-data". The lab's clients do not declare it, so the harness creates one on every client through
# the API with Nomad's built-in mkdir plugin before registering the job (`nomad volume create` with plugin_id = "mkdir")
# and deletes them at teardown; on an older build the job is refused at input. Its task writes a marker once per place
# to <volume>/<job>.<group>-<index>.marker (the harness's convention), then serves HTTP. Judged by volume-data (a place
# back on the same node finds its marker) and volume-state (each node's volume ready, the allocs using it the live ones).
job "dynamic-host-volume" {
  datacenters = ["*"]
  type        = "service"

  group "web" {
    count = 2

    volume "data" {
      type      = "host"
      source    = "harness-data"
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
