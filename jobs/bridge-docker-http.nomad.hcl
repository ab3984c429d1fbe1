# The docker variant of the reboot scenario (GH-24292, `--driver docker`): one bridge-mode group, one docker task
# serving HTTP on port 80 inside the alloc's network namespace (owned by Nomad's pause container), mapped to a
# dynamic host port. The lab has no registry: the image is built inside the client VM from the box's static
# busybox (lib/cluster/docker-image.ts) and is never pulled (a tag other than "latest" that exists locally).
job "bridge-docker-http" {
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
      driver = "docker"

      config {
        image   = "nomad-reboot-harness/busybox:local"
        command = "/bin/busybox"
        args    = ["httpd", "-f", "-v", "-p", "80", "-h", "/www"]
      }

      resources {
        cpu    = 200
        memory = 64
      }
    }
  }
}
