/** The one-line summary of a host that was not quiet (pure: reports and comparisons use it). */
import type { DoctorRecord } from "../../results/schema.js";

/** The report's warning line for a host that was not quiet, or null. */
export function notQuietSummary(rec: DoctorRecord | undefined): string | null {
  if (!rec || rec.quiet) return null;
  const bad = rec.findings.filter((f) => f.status !== "pass").map((f) => `${f.id} ${f.value} (${f.status})`);
  return `host not quiet when measured: ${bad.join(", ")}; small differences may be noise (perfgate doctor)`;
}
