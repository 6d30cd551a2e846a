/** The cell page's bundle (assets/cell.js). */
import { start } from "../app.js";
import { cellPage } from "../cell.js";

start(cellPage);
