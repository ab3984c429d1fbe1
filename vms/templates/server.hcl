# Nomad server agent (nomad-reboot-harness). Rendered by lib/cluster/render.ts.
data_dir             = "/var/lib/nomad"
log_level            = "{{ log_level }}"
disable_update_check = true

# RPC and Serf on the private network; HTTP also on loopback (the harness tunnels to 127.0.0.1:4646).
bind_addr = "{{ private_ip }}"
addresses {
  http = "0.0.0.0"
}
advertise {
  http = "{{ private_ip }}"
  rpc  = "{{ private_ip }}"
  serf = "{{ private_ip }}"
}

server {
  enabled          = true
  bootstrap_expect = 1
  # longer than a client reboot, so the node is not marked down and its allocs are restored,
  # not replaced (nomad-reference.md 3.2)
  heartbeat_grace = "{{ heartbeat_grace }}"
}

client {
  enabled = false
}
