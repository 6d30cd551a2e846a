/**
 * What a sysbench command line says, read back from a results file (pure): which of its options
 * only tell how sysbench reached the server (command.ts writes them).
 */

/**
 * Options that only say how sysbench reached this instance (its port is free-picked per start, the
 * socket lives in the run's work directory, the account and schema are perfgate's own), not what
 * it measured: a history series is not split by them.
 */
const CONNECTION_OPTIONS = /^--(mysql-(port|socket|user|password|db)|pgsql-(port|user|password|db))=/;

/** Whether a sysbench argument is a connection detail (see CONNECTION_OPTIONS), not a condition. */
export function isConnectionOption(arg: string): boolean {
  return CONNECTION_OPTIONS.test(arg);
}
