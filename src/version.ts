/** perfgate's version, recorded in every results file (kept equal to package.json by a test). */
export const PERFGATE_VERSION = "0.1.0";
