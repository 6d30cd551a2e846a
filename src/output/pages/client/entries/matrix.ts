/** The matrix page's bundle (assets/matrix.js). */
import { start } from "../app.js";
import { matrixPage } from "../matrix.js";

start(matrixPage);
