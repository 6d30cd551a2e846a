/**
 * When the "KB written/txn" row misleads. The row is the server process's `write_bytes` of
 * /proc/<pid>/io per transaction; what that counter charges, measured, is in docs/metrics.md ("What
 * KB written/txn counts"). Beside InnoDB's own count of the bytes it wrote (SHOW GLOBAL STATUS
 * `Innodb_data_written`, over the same phase) one side's count can be:
 *
 * - `none`: 0 while InnoDB wrote: the data lives on a file system whose writes the counter does
 *   not see (tmpfs counts nothing);
 * - `escaped`: less than half of what InnoDB wrote: the rest escaped the counter (written by
 *   another process, or cancelled before writeback, which is counted apart);
 * - `blocks`: more than 10× what InnoDB wrote: whole blocks handed to the kernel (MySQL 8.0's
 *   doublewrite buffer in ibdata1: 2,365 against 5.2 KB per transaction), not data.
 *
 * Then a head/base ratio of the row says little about the change, and the reports mark the row
 * with the reason instead of printing the bare ratio. Pure and browser-safe (the version-matrix
 * page bundles it).
 */

export type WriteCaveatKind = "none" | "escaped" | "blocks";

export interface WriteCaveat {
  kind: WriteCaveatKind;
  /** one line naming the reason, without the side (the caller says which) */
  reason: string;
}

/** Below this share of InnoDB's bytes the counter is said to miss writes. */
export const ESCAPED_BELOW = 0.5;
/** Above this multiple of InnoDB's bytes the counter is said to count blocks, not data. */
export const BLOCKS_ABOVE = 10;

const kb = (x: number) =>
  x >= 100 ? Math.round(x).toLocaleString("en-US") : x >= 1 ? x.toFixed(1) : x.toPrecision(2);

/**
 * The caveat of one side's KB written per transaction against InnoDB's KB written per transaction
 * over the same phases (null: InnoDB's count not recorded); `fsyncsPerTxn` tells a server that
 * wrote when InnoDB's byte count is missing. Null: nothing to say.
 */
export function writeCaveat(
  writeKbPerTxn: number,
  innodbKbPerTxn: number | null,
  fsyncsPerTxn: number | null = null,
): WriteCaveat | null {
  if (!Number.isFinite(writeKbPerTxn) || writeKbPerTxn < 0) return null;
  const wrote = innodbKbPerTxn !== null && innodbKbPerTxn > 0;
  if (writeKbPerTxn === 0 && (wrote || (fsyncsPerTxn !== null && fsyncsPerTxn > 0))) {
    return {
      kind: "none",
      reason: `/proc/<pid>/io counted no writes while ${wrote ? `InnoDB wrote ${kb(innodbKbPerTxn)} KB/txn (Innodb_data_written)` : "InnoDB fsynced"}: its files are where the counter does not see writes (tmpfs counts none)`,
    };
  }
  if (!wrote) return null;
  if (writeKbPerTxn < ESCAPED_BELOW * innodbKbPerTxn) {
    return {
      kind: "escaped",
      reason: `/proc/<pid>/io counted ${kb(writeKbPerTxn)} of the ${kb(innodbKbPerTxn)} KB/txn InnoDB wrote (Innodb_data_written): the rest escaped the counter (written by another process, or cancelled before writeback)`,
    };
  }
  if (writeKbPerTxn > BLOCKS_ABOVE * innodbKbPerTxn) {
    return {
      kind: "blocks",
      reason: `/proc/<pid>/io counted ${kb(writeKbPerTxn)} KB/txn, ${Math.round(writeKbPerTxn / innodbKbPerTxn).toLocaleString("en-US")}× the ${kb(innodbKbPerTxn)} KB/txn InnoDB wrote (Innodb_data_written): whole blocks handed to the kernel (as MySQL 8.0 writes its doublewrite buffer), not data`,
    };
  }
  return null;
}

/** One line for a row whose sides have caveats: "base: …; head: …", or null when neither has one. */
export function writeCaveatText(base: WriteCaveat | null, head: WriteCaveat | null): string | null {
  const parts: string[] = [];
  if (base) parts.push(`base: ${base.reason}`);
  if (head) parts.push(`head: ${head.reason}`);
  return parts.length > 0
    ? `${parts.join("; ")}. A ratio of this row does not measure the change in data written.`
    : null;
}
