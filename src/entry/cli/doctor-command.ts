/** `perfgate doctor`: host checks and a noise probe, as text or the JSON fingerprint. */
import type { Command } from "commander";
import { hasFail, renderDoctor, runDoctor } from "../../measuring/doctor/doctor.js";
import { HOST_ROOT_ENV, hostReader, hostRoot } from "../../measuring/host/reader.js";
import { consoleLogger } from "../../util/log.js";
import { writeOut } from "../../util/terminal.js";
import { cliOption, flagParser } from "../options/commander.js";
import { CACHE_DIR } from "../options/definitions.js";
import { doctorOptions, doctorRequest } from "../options/doctor-request.js";
import { wholeNumber } from "../options/values.js";

interface DoctorFlags {
  json?: boolean;
  strict?: boolean;
  probe: boolean;
  probeServer: string;
  probeSeconds: number;
  cacheDir?: string;
}

export function registerDoctorCommand(
  program: Command,
  deps: { defaultServer: string; interruptController: () => { signal: AbortSignal; dispose: () => void } },
): void {
  program
    .command("doctor")
    .description(
      `Is this host quiet enough to benchmark on? Checks virtualization, CPU governor, turbo, THP, swap, load, foreign servers, memory, disk and clock source (read under $${HOST_ROOT_ENV}, default /), then runs a short noise probe.`,
    )
    .option("--json", "print the fingerprint (what runs record) as JSON")
    .option("--strict", "exit 1 when any check fails")
    .option("--no-probe", "skip the noise probe (CPU loop and sysbench cell)")
    .option(
      "--probe-server <spec>",
      "server for the probe's sysbench cell, or 'none' for the CPU loop only",
      deps.defaultServer,
    )
    .option(
      "--probe-seconds <n>",
      "length of the probe's sysbench cell",
      flagParser("probe-seconds", wholeNumber(3, 600, "seconds")),
      10,
    )
    .addOption(cliOption(CACHE_DIR))
    .action(async (o: DoctorFlags) => {
      const request = doctorRequest({
        probe: o.probe,
        probeServer: o.probeServer === "none" ? null : o.probeServer,
        probeSeconds: o.probeSeconds,
        ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
        json: o.json === true,
        strict: o.strict === true,
      });
      const log = consoleLogger();
      const interrupt = deps.interruptController();
      try {
        const { diskPath, probe } = doctorOptions(request, { log, signal: interrupt.signal });
        const rec = await runDoctor(diskPath, probe, hostReader(hostRoot()));
        writeOut(request.json ? `${JSON.stringify(rec, null, 2)}\n` : `${renderDoctor(rec)}\n`);
        if (request.strict && hasFail(rec)) process.exitCode = 1;
      } finally {
        interrupt.dispose();
      }
    });
}
