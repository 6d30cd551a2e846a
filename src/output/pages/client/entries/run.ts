/** The run page's bundle (assets/run.js). */
import { start } from "../app.js";
import { runPage } from "../run.js";

start(runPage);
