/** The run page's interactive flame graph (assets/flame.js), loaded by run-flame.ts only when asked. */
import "../flame.js";
