/** Progress lines for long runs: phase, cell i/N, elapsed and ETA, current tps (pure formatting). */

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "?";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m${String(r).padStart(2, "0")}s`;
  return `${r}s`;
}

export interface ProgressState {
  phase: string;
  cellIndex: number;
  cellCount: number;
  /** seconds into the current sysbench run and its planned length */
  runElapsed: number;
  runLength: number;
  tps: number | null;
  elapsed: number;
  /** planned seconds still ahead, after the current run */
  remainingPlanned: number;
}

export function progressLine(p: ProgressState): string {
  const eta = p.remainingPlanned + Math.max(0, p.runLength - p.runElapsed);
  const tps = p.tps === null ? "" : ` | tps ${p.tps.toFixed(1)}`;
  const cell = p.cellCount > 0 && p.cellIndex > 0 ? `cell ${p.cellIndex}/${p.cellCount} ` : "";
  return `[${cell}${p.phase}] ${Math.round(p.runElapsed)}/${p.runLength} s${tps} | elapsed ${formatDuration(p.elapsed)}, ETA ${formatDuration(eta)}`;
}
