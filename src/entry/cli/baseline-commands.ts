/** `perfgate baseline save|list|path`: storing complete runs as the baselines later runs are compared with. */
import { type Command, Option } from "commander";
import {
  DEFAULT_BASELINE_DIR,
  findBaseline,
  listBaselines,
  saveBaseline,
} from "../../output/history/baselines.js";
import { readResults } from "../../results/store.js";
import { plural } from "../../util/plural.js";
import { writeOut } from "../../util/terminal.js";
import { cliOption } from "../options/commander.js";
import { FORCE, RUNNER_CLASS } from "../options/definitions.js";

export function registerBaselineCommands(program: Command): void {
  const baseline = program
    .command("baseline")
    .description(
      "Baselines: complete runs stored under baselines/<runner-class>/<workload>/ to compare later runs with.",
    );
  const dirOption = () => new Option("--dir <dir>", "baselines directory").default(DEFAULT_BASELINE_DIR);
  const classOption = () => cliOption(RUNNER_CLASS);

  baseline
    .command("save")
    .description("Store a complete run as the baseline for its runner class, workload and server.")
    .argument("<results.json>", "results file written by perfgate run")
    .addOption(dirOption())
    .addOption(classOption())
    .addOption(cliOption(FORCE, { help: "replace an existing baseline" }))
    .action((file: string, o: { dir: string; runnerClass?: string; force?: boolean }) => {
      const path = saveBaseline(file, {
        dir: o.dir,
        ...(o.runnerClass ? { runnerClass: o.runnerClass } : {}),
        ...(o.force ? { force: true } : {}),
      });
      writeOut(`${path}\n`);
    });

  baseline
    .command("list")
    .description("List stored baselines.")
    .addOption(dirOption())
    .action((o: { dir: string }) => {
      const list = listBaselines(o.dir);
      if (list.length === 0) {
        writeOut(`no baselines under ${o.dir}\n`);
        return;
      }
      for (const b of list) {
        writeOut(
          `${b.runnerClass}  ${b.workload}  ${b.server}  ${plural(b.cells, "cell")}  ${b.startedAt}  ${b.path}\n`,
        );
      }
    });

  baseline
    .command("path")
    .description(
      "Print the stored baseline a results file should be compared with (same runner class, workload, server).",
    )
    .argument("<results.json>", "results file written by perfgate run")
    .addOption(dirOption())
    .addOption(classOption())
    .option(
      "--server <flavor@version>",
      "another server's baseline, e.g. mariadb@10.11.5 (default: the run's own)",
    )
    .action((file: string, o: { dir: string; runnerClass?: string; server?: string }) => {
      const path = findBaseline(readResults(file), {
        dir: o.dir,
        ...(o.runnerClass ? { runnerClass: o.runnerClass } : {}),
        ...(o.server ? { server: o.server } : {}),
      });
      writeOut(`${path}\n`);
    });
}
