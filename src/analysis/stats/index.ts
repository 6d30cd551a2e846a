/**
 * perfgate's statistics: distributions, base-vs-head comparisons, the verdict rule and within-run
 * degradation detection. Pure (no I/O), no statistics library. Methods: docs/statistics.md.
 */
export {
  BATCH_TAU_FACTOR,
  batchLength,
  batchMeans,
  batchMeansShortfall,
  MAX_BATCHES,
  MIN_BATCH_LEN,
  MIN_BATCHES,
  type RunSpread,
} from "./batch-means.js";
export {
  type Comparison,
  type ComparisonMethod,
  type ComparisonOptions,
  compareLogs,
  comparePaired,
  compareRuns,
  compareUnpaired,
  DEFAULT_ALPHA,
  DEFAULT_POWER,
  type Design,
  halfWidthAt,
  logToPct,
  MAX_SAMPLES,
  pctToLog,
  samplesForEffect,
  samplesNeeded,
  welchDf,
} from "./compare.js";
export {
  compareDegradation,
  compareDegradationSeries,
  type DegradationComparison,
  type DegradationOptions,
  type DegradationResult,
  detectDegradation,
  fitDecline,
  type HingeFit,
  medianFilter,
  surelyTooShort,
  type TimedValue,
  tidySeries,
} from "./degradation.js";
export {
  geometricMean,
  lag1Autocorrelation,
  logs,
  logsInPlace,
  mean,
  median,
  quantile,
  quantileSorted,
  sampleSd,
  sampleVariance,
} from "./descriptive.js";
export {
  erfc,
  lnBeta,
  lnGamma,
  normalCdf,
  normalPdf,
  normalQuantile,
  regularizedGammaQ,
  regularizedIncompleteBeta,
  studentTCdf,
  studentTPdf,
  studentTQuantile,
} from "./distributions.js";
export { type Direction, isWorse } from "./metrics.js";
export {
  DEFAULT_THRESHOLD_PCT,
  decide,
  MAX_T_RATIO,
  MIN_INTERVAL_N,
  type ThresholdConfig,
  thresholdFor,
  type Verdict,
  type VerdictKind,
  verdictFromComparison,
  withheldInterval,
} from "./verdict.js";
