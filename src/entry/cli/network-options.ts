/** The network-scenario flags shared by `perfgate run` and `perfgate ab` (src/servers/network.ts). */
import { Option } from "commander";
import {
  DEFAULT_SERVER_ADDRESS,
  type NetworkSetup,
  parseServerAddress,
  splitWrapper,
} from "../../servers/network.js";

export interface NetworkFlags {
  serverAddress?: string;
  serverWrapper?: string[];
  clientWrapper?: string[];
}

const OPTIONS = {
  "server-address": () =>
    new Option(
      "--server-address <ip>",
      `IP address the server binds to and sysbench connects to over TCP (default ${DEFAULT_SERVER_ADDRESS})`,
    ).argParser((v: string) => parseServerAddress(v, "--server-address")),
  "server-wrapper": () =>
    new Option(
      "--server-wrapper <cmd>",
      'command mysqld is started through, e.g. "ip netns exec pgsrv" (split on spaces, no shell; quote a word with \'...\' or "...")',
    ).argParser((v: string) => splitWrapper(v, "--server-wrapper")),
  "client-wrapper": () =>
    new Option(
      "--client-wrapper <cmd>",
      'command sysbench is run through, e.g. "ip netns exec pgcli" or "ssh bench-client" (sysbench must exist there; split like --server-wrapper)',
    ).argParser((v: string) => splitWrapper(v, "--client-wrapper")),
} as const;

/** One of the network-scenario options, for `.addOption(...)` on run and ab. */
export function networkOption(name: keyof typeof OPTIONS): Option {
  return OPTIONS[name]();
}

/** The setup the flags describe, or undefined when none was given (the default local setup). */
export function networkFromOptions(o: NetworkFlags): NetworkSetup | undefined {
  if (o.serverAddress === undefined && o.serverWrapper === undefined && o.clientWrapper === undefined) {
    return undefined;
  }
  return {
    serverAddress: o.serverAddress ?? DEFAULT_SERVER_ADDRESS,
    serverWrapper: o.serverWrapper ?? null,
    clientWrapper: o.clientWrapper ?? null,
  };
}
