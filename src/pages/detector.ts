/** The change-point detector the trend site and `history changes` use: src/changes with its defaults. */
import { detectChanges } from "../changes/index.js";
import type { Detector } from "./model.js";

export const detector: Detector = (points) => detectChanges(points);
