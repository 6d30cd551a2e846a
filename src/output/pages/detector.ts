/** The change-point detector the trend site and `history changes` use: src/analysis/changes with its defaults. */
import { detectChanges } from "../../analysis/changes/index.js";
import type { Detector } from "./model.js";

export const detector: Detector = (points) => detectChanges(points);
