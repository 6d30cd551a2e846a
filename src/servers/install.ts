/** What a source hands over: a server unpacked on disk, ready to initialise and start. */
import type { Flavor, SourceName } from "./spec.js";

export interface ServerInstall {
  flavor: Flavor;
  version: string;
  source: SourceName;
  /** the spec as resolved, e.g. maven:mariadb@11.4.5 */
  spec: string;
  /** where it came from: URL, package list or directory */
  origin: string;
  /** sha256 of the downloaded artifact (null for path installs) */
  sha256: string | null;
  /** --basedir for the server and its install script */
  basedir: string;
  /** the server binary */
  mysqld: string;
  /** mariadb-install-db / mysql_install_db script, null when the flavor initialises with mysqld itself */
  installDb: string | null;
  /** directory holding errmsg.sys language dirs (lc-messages-dir) */
  shareDir: string;
  /** directory for plugins, when the install has one */
  pluginDir: string | null;
  /** extra shared-library directories for LD_LIBRARY_PATH */
  libDirs: string[];
}

/** The environment a server process from this install runs with. */
export function installEnv(install: ServerInstall, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (install.libDirs.length === 0) return { ...base };
  const existing = base.LD_LIBRARY_PATH ? [base.LD_LIBRARY_PATH] : [];
  return { ...base, LD_LIBRARY_PATH: [...install.libDirs, ...existing].join(":") };
}
