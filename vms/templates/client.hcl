# Nomad client agent (nomad-reboot-harness). Rendered by lib/cluster/render.ts.
data_dir             = "/var/lib/nomad"
log_level            = "{{ log_level }}"
disable_update_check = true
# the lab's slot name (client, client-2): reports and targets name machines by it
name                 = "{{ node_name }}"

bind_addr = "{{ private_ip }}"
addresses {
  http = "0.0.0.0"
}
advertise {
  http = "{{ private_ip }}"
  rpc  = "{{ private_ip }}"
}

client {
  enabled           = true
  # every server: the client keeps working with any of them
  servers           = [{{ servers }}]
  # the interface of private_ip: eth1 on the lab's VMs (eth0 is Vagrant's management network); on an existing
  # host (lab.provider: ssh) the one holding the address the harness reached it on
  network_interface = "{{ network_interface }}"
  # versioned reference plugins baked into the box (vms/build-cni-plugins.ts); Debian's 1.1.1 in
  # /usr/lib/cni report "version unknown", which fails Nomad's CNI version constraints for bridge jobs
  cni_path              = "/opt/cni/bin"
  bridge_network_name   = "nomad"
  bridge_network_subnet = "172.26.64.0/20"
  # the lab's static host volume (lib/model/volumes.ts LAB_HOST_VOLUME): a job's group may mount it (volume-data judges
  # the marker its task writes there); the agent install creates the directory before the agent starts
  host_volume "reboot-harness" {
    path      = "/srv/reboot-harness"
    read_only = false
  }
  options {
    # the lab has no cloud metadata service: skip probes that each wait for a timeout at every agent start
    "fingerprint.denylist" = "env_aws,env_gce,env_azure,env_digitalocean"
  }
}

# Off by default, as in Nomad: the harness turns it on only when a job of the run uses raw_exec (the run's facts say so)
plugin "raw_exec" {
  config {
    enabled = {{ raw_exec }}
  }
}

# Used by the docker variant (`--driver docker`, a box with Docker); inert where Docker is not installed.
# The lab has no registry, so the pause container that owns a bridge alloc's network namespace uses the image
# built inside the client VM (lib/cluster/docker-image.ts) instead of registry.k8s.io/pause; Nomad does not pull
# an infra_image whose tag is not "latest" when it exists locally. Image GC would delete that local-only image
# when the last alloc using it stops, so it is off.
plugin "docker" {
  config {
    infra_image = "nomad-reboot-harness/busybox:local"
    gc {
      image = false
    }
  }
}
