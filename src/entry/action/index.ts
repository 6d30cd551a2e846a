/** The bundle entry of the action's main step (action/dist/index.mjs): the step is src/entry/action/run.ts. */
import { run } from "./run.js";

await run();
