/** The thread-scaling page's bundle (assets/scaling.js). */
import { start } from "../app.js";
import { scalingPage } from "../scaling.js";

start(scalingPage);
