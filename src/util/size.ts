/** Byte sizes as perfgate's tiers and server options write them ("2G", "512M", "1.5G"). Pure. */

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;
const MULTIPLIER: Readonly<Record<string, number>> = { K: KiB, M: MiB, G: GiB, T: 1024 * GiB };

/** Parses a tier like `2G`, `512M`, `1.5G` into bytes; null when malformed. */
export function parseSize(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)([KMGT])?$/i.exec(text.trim());
  if (!m?.[1]) return null;
  const unit = (m[2] ?? "").toUpperCase();
  const n = Number(m[1]) * (unit ? (MULTIPLIER[unit] ?? 1) : 1);
  return Number.isFinite(n) ? Math.round(n) : null;
}
