/**
 * The network scenario (Percona report: "network"): the server on one host or network namespace,
 * sysbench on another, so the network path is part of the measurement.
 *
 * - the server is started by perfgate as always (private datadir and socket; perfgate's control
 *   connection keeps using the unix socket, which works across network namespaces), optionally
 *   through a server wrapper (`ip netns exec pgsrv`) and bound to `serverAddress` instead of
 *   127.0.0.1;
 * - sysbench runs through a client wrapper (`ip netns exec pgcli`, `ssh bench-client`) and
 *   connects to `serverAddress` over TCP.
 *
 * Wrappers are split into argv here, never by a shell (see splitWrapper for the quoting rule), and
 * must exec or stay in the foreground of the command they are given: perfgate stops a wrapped
 * process by signalling its process group.
 */
import { isIP } from "node:net";
import type { NetworkRecord } from "../results/schema.js";
import { UserError } from "../util/errors.js";
import { lastLines, runCommand } from "../util/processes.js";

export const DEFAULT_SERVER_ADDRESS = "127.0.0.1";

export interface NetworkSetup {
  /** the address the server binds to and sysbench connects to */
  serverAddress: string;
  /** argv prefix mysqld is started through (null: started directly) */
  serverWrapper: string[] | null;
  /** argv prefix sysbench is run through (null: run directly) */
  clientWrapper: string[] | null;
}

export const LOCAL_NETWORK: NetworkSetup = {
  serverAddress: DEFAULT_SERVER_ADDRESS,
  serverWrapper: null,
  clientWrapper: null,
};

/**
 * Splits a wrapper command into argv without a shell: words are separated by whitespace; a word
 * may be quoted with '...' or "..." (quotes are removed, what is inside is taken literally: no
 * escapes, variables or globbing). `ssh -o 'ProxyJump bastion' bench` gives
 * ["ssh", "-o", "ProxyJump bastion", "bench"].
 */
export function splitWrapper(text: string, flag = "wrapper"): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: string | null = null;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= "";
    } else if (/\s/.test(ch)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? "") + ch;
    }
  }
  if (quote) throw new UserError(`${flag} ${text}: unterminated ${quote} quote`);
  if (word !== null) words.push(word);
  if (words.length === 0 || words[0] === "") {
    throw new UserError(`${flag} ${JSON.stringify(text)}: expected a command, e.g. "ip netns exec pgsrv"`);
  }
  return words;
}

/** Checks a server address: an IPv4 or IPv6 address sysbench can connect to (not 0.0.0.0 or ::). */
export function parseServerAddress(text: string, flag = "--server-address"): string {
  const a = text.trim();
  if (isIP(a) === 0) {
    throw new UserError(
      `${flag} ${text}: expected an IP address (IPv4 like 10.0.0.5 or IPv6), not a host name`,
    );
  }
  if (a === "0.0.0.0" || /^[0:]+$/.test(a)) {
    throw new UserError(
      `${flag} ${text}: the wildcard address cannot be connected to; give the server's own address that sysbench connects to`,
    );
  }
  return a;
}

export function isLocal(n: NetworkSetup): boolean {
  return n.serverAddress === DEFAULT_SERVER_ADDRESS && n.serverWrapper === null && n.clientWrapper === null;
}

/** `command args` run through `wrapper` (when there is one). */
export function wrapArgv(
  wrapper: readonly string[] | null,
  command: string,
  args: readonly string[],
): { command: string; args: string[] } {
  if (!wrapper || wrapper.length === 0) return { command, args: [...args] };
  return { command: wrapper[0]!, args: [...wrapper.slice(1), command, ...args] };
}

/** Shows an argv the way it would be typed (words with spaces quoted). */
export function showArgv(argv: readonly string[]): string {
  return argv.map((w) => (/[\s'"]/.test(w) || w === "" ? `'${w}'` : w)).join(" ");
}

/** What goes into the results file (omitted for the local setup, so such files look as before). */
export function networkRecord(n: NetworkSetup): NetworkRecord | undefined {
  if (isLocal(n)) return undefined;
  return {
    server_address: n.serverAddress,
    server_wrapper: n.serverWrapper,
    client_wrapper: n.clientWrapper,
  };
}

/** A one-line description for reports and logs. */
export function describeNetwork(r: NetworkRecord): string {
  const client = r.client_wrapper
    ? `sysbench through \`${showArgv(r.client_wrapper)}\``
    : "sysbench on this host";
  const server = r.server_wrapper ? `, server started through \`${showArgv(r.server_wrapper)}\`` : "";
  return `${client} to the server at ${r.server_address} over TCP${server}`;
}

/**
 * Fails early (before a datadir is made) when the server wrapper cannot run a command, e.g. a
 * network namespace that does not exist: runs `<wrapper> true`.
 */
export async function checkServerWrapper(n: NetworkSetup, signal?: AbortSignal): Promise<void> {
  if (!n.serverWrapper) return;
  const { command, args } = wrapArgv(n.serverWrapper, "true", []);
  let r: Awaited<ReturnType<typeof runCommand>>;
  try {
    r = await runCommand(command, args, signal ? { signal } : {});
  } catch (err) {
    throw new UserError(
      `--server-wrapper ${showArgv(n.serverWrapper)} cannot run: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (r.code !== 0) {
    throw new UserError(
      `--server-wrapper ${showArgv(n.serverWrapper)} does not work (\`${showArgv([command, ...args])}\` exited with ${r.code ?? r.signal}: ${lastLines(`${r.stdout}\n${r.stderr}`, 2) || "no output"})`,
    );
  }
}
