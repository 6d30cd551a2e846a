/**
 * perfgate's Logger on the Actions runner: group() opens a collapsible log group
 * (core.startGroup/endGroup; groups do not nest on GitHub, so an inner group is a plain line),
 * progress lines are thinned to one per 10 s, and no line can start a workflow command: text that
 * came from outside (server output, error messages) is printed with a leading "::" defused.
 */
import * as core from "@actions/core";
import type { Logger } from "../../util/log.js";

/** Defuses workflow commands (`::set-output`, `::add-mask`, ...) at the start of any line. */
export function defuseCommands(message: string): string {
  return message.replace(/^(\s*)::/gm, "$1: :");
}

export interface CoreLike {
  info(message: string): void;
  warning(message: string): void;
  startGroup(name: string): void;
  endGroup(): void;
}

export function actionsLogger(c: CoreLike = core, now: () => number = Date.now): Logger {
  let open = false;
  let lastProgress = Number.NEGATIVE_INFINITY;
  return {
    info: (m) => c.info(defuseCommands(m)),
    warn: (m) => c.warning(m),
    progress(m) {
      const t = now();
      if (t - lastProgress < 10_000) return;
      lastProgress = t;
      c.info(defuseCommands(m));
    },
    group(name) {
      if (open) {
        c.info(defuseCommands(`== ${name}`));
        return () => {};
      }
      open = true;
      c.startGroup(name);
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        open = false;
        c.endGroup();
      };
    },
  };
}
