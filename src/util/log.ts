/**
 * Where perfgate tells the user what it is doing. The CLI writes to stderr (stdout stays for
 * reports); the action maps groups onto ::group:: lines. Library code takes a Logger parameter.
 */
import { terminalSafe } from "./terminal.js";

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  /** a transient status line (overwritten in a TTY, printed sparsely otherwise) */
  progress(message: string): void;
  /** start a named phase; returns a function that ends it */
  group(name: string): () => void;
}

export function consoleLogger(stream: NodeJS.WriteStream = process.stderr): Logger {
  const tty = stream.isTTY === true;
  let lastProgress = 0;
  let progressShown = false;
  const clear = () => {
    if (tty && progressShown) stream.write("\r\x1b[2K");
    progressShown = false;
  };
  return {
    info(message) {
      clear();
      stream.write(`${terminalSafe(message)}\n`);
    },
    warn(message) {
      clear();
      stream.write(`warning: ${terminalSafe(message)}\n`);
    },
    progress(message) {
      if (tty) {
        stream.write(`\r\x1b[2K${terminalSafe(message)}`);
        progressShown = true;
        return;
      }
      // Not a terminal (CI logs): at most one progress line every 10 s.
      const now = Date.now();
      if (now - lastProgress >= 10_000) {
        lastProgress = now;
        stream.write(`${terminalSafe(message)}\n`);
      }
    },
    group(name) {
      clear();
      stream.write(`== ${terminalSafe(name)}\n`);
      return () => clear();
    },
  };
}

/** A logger that keeps lines in memory, for tests and for quiet library use. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(m),
    warn: (m) => lines.push(`warning: ${m}`),
    progress: (m) => lines.push(`progress: ${m}`),
    group: (n) => {
      lines.push(`== ${n}`);
      return () => {};
    },
  };
}
