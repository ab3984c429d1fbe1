// Where and how to reach one machine over SSH (what `vagrant ssh-config` says).

/** Connection details of one machine, as given by `vagrant ssh-config`. */
export interface SshTarget {
  /** the `Host` alias (the Vagrant machine name) */
  host: string;
  /** address to connect to */
  hostName: string;
  port: number;
  user: string;
  /** private key files, in order; the first readable one is used */
  identityFiles: string[];
  /** `StrictHostKeyChecking no` in the config: the host key is not verified */
  strictHostKeyChecking: boolean;
  /** every other option as written (lower-cased keys), for evidence and debugging */
  options: Record<string, string>;
  /** a host to go through first (ssh -J): the connection is carried by a direct-tcpip channel of the jump host's */
  jump?: SshTarget;
}
