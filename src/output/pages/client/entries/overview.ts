/** The overview page's bundle (assets/overview.js). */
import { start } from "../app.js";
import { overviewPage } from "../overview.js";

start(overviewPage);
