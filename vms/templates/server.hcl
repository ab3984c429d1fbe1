# Nomad server agent (nomad-reboot-harness). Rendered by lib/cluster/render.ts.
data_dir             = "/var/lib/nomad"
log_level            = "{{ log_level }}"
disable_update_check = true
# the lab's slot name (server, server-2): reports and targets name machines by it
name                 = "{{ node_name }}"

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
  bootstrap_expect = {{ bootstrap_expect }}
  # every server of the Raft cluster (empty for a lone server); retried until the others answer
  server_join {
    retry_join = [{{ server_join }}]
  }
  # longer than a client reboot, so the node is not marked down and its allocs are restored,
  # not replaced (nomad-reference.md 3.2)
  heartbeat_grace = "{{ heartbeat_grace }}"
}

client {
  enabled = false
}
