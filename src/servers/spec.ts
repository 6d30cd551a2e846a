/**
 * Server spec strings, e.g. `mariadb@11.4.5`, `deb:mariadb@10.11.18`, `maven:mariadb@10.11.5`,
 * `tarball:mysql@8.4.3`, `docker:percona@8.0.36`, `build:/src/mariadb@HEAD`, `path:/opt/mariadb`.
 *
 * Pure: no file, network or process access, and no import of a source module, so it can run first
 * thing in every command (before anything is downloaded or started) and the sources can import it.
 * SPEC_FORMS is the one list of accepted forms: the parser, its error messages and the CLI help
 * are made from it (docs/servers.md lists the same forms; a test keeps the two in step).
 */
import { UsageError } from "../util/errors.js";

export const FLAVORS = ["mariadb", "mysql", "percona"] as const;
export type Flavor = (typeof FLAVORS)[number];

/** Sources that fetch a flavor at a version. `path` and `build` are separate: they name a directory or repository. */
export const VERSIONED_SOURCES = ["maven", "deb", "tarball", "docker"] as const;
export type VersionedSource = (typeof VERSIONED_SOURCES)[number];
export type SourceName = VersionedSource | "path" | "build";

export interface VersionedSpec {
  kind: "versioned";
  raw: string;
  /** null: a bare `flavor@X.Y.Z`, resolved through the sources in order */
  source: VersionedSource | null;
  flavor: Flavor;
  version: string;
}
export interface PathSpec {
  kind: "path";
  raw: string;
  source: "path";
  dir: string;
}
export interface BuildSpec {
  kind: "build";
  raw: string;
  source: "build";
  /** a local directory or a git URL */
  repo: string;
  /** a commit, tag or branch */
  ref: string;
}
export type ServerSpec = VersionedSpec | PathSpec | BuildSpec;

/** One accepted form of a spec. */
export interface SpecForm {
  /** the source the form names; null for a bare `flavor@X.Y.Z` */
  source: SourceName | null;
  /** the form, e.g. `maven:<mariadb|mysql>@<X.Y.Z>` */
  form: string;
  example: string;
  /** flavors a versioned form offers */
  flavors?: readonly Flavor[];
}

const VERSION = "<X.Y.Z>";
const flavorsText = (fs: readonly Flavor[]) => `<${fs.join("|")}>`;
const versioned = (
  source: VersionedSource | null,
  flavors: readonly Flavor[],
  example: string,
): SpecForm => ({
  source,
  form: `${source ? `${source}:` : ""}${flavorsText(flavors)}@${VERSION}`,
  example,
  flavors,
});

/** Every accepted form, in the order help and errors list them. */
export const SPEC_FORMS: readonly SpecForm[] = [
  versioned(null, FLAVORS, "mariadb@11.4.5"),
  versioned("maven", ["mariadb", "mysql"], "maven:mariadb@10.11.5"),
  versioned("deb", ["mariadb", "mysql"], "deb:mariadb@10.11.18"),
  versioned("tarball", FLAVORS, "tarball:mysql@8.4.3"),
  versioned("docker", FLAVORS, "docker:percona@8.0.36"),
  {
    source: "build",
    form: "build:<directory or git URL>@<ref>",
    example: "build:/src/mariadb@mariadb-10.11.18",
  },
  { source: "path", form: "path:<directory>", example: "path:/opt/mariadb" },
];

/** The row of SPEC_FORMS for a source (null: the bare form). */
export function specForm(source: SourceName | null): SpecForm {
  return SPEC_FORMS.find((f) => f.source === source) as SpecForm;
}

/** The accepted forms in one line, e.g. for `--help`. */
export function specFormsText(): string {
  return SPEC_FORMS.map((f) => f.form).join(", ");
}

/** `accepted: …` for an error about any spec, or about one source's form. */
export function acceptedText(source?: SourceName): string {
  if (source === undefined) return `accepted: ${specFormsText()} (e.g. mariadb@11.4.5)`;
  const f = specForm(source);
  return `accepted: ${f.form} (e.g. ${f.example})`;
}

const VERSION_RE = /^\d+\.\d+\.\d+$/;

function usage(raw: string, what: string, source?: SourceName): UsageError {
  return new UsageError(`server spec "${raw}": ${what}; ${acceptedText(source)}`);
}

/** Zero-width characters: never part of a spec (see parseServerSpec). */
const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/g;

/**
 * Parses and validates a spec: returns the typed spec or throws a one-line UsageError naming the
 * spec, what is wrong and the accepted forms. No I/O: whether the version exists, the directory
 * is there or the repository has the ref is for the sources to say (checkServerAvailable, then
 * provisioning).
 */
export function parseServerSpec(text: string): ServerSpec {
  // a spec copied from a report or comment carries the zero-width space that keeps `@` from
  // linking there (src/output/report/escape.ts): invisible, and never part of a spec
  const raw = text.replace(ZERO_WIDTH, "").trim();
  if (raw === "") throw usage(text, "empty");
  if (raw.startsWith("build:")) return parseBuildSpec(raw);
  if (raw.startsWith("path:")) {
    const dir = raw.slice("path:".length);
    if (dir === "") throw usage(raw, "directory is empty", "path");
    return { kind: "path", raw, source: "path", dir };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    throw usage(raw, "a URL is not a server spec (a git URL builds with build:<URL>@<ref>)");
  }
  if (/^(\/|\.\.?\/|~\/)/.test(raw)) throw usage(raw, `a directory is written path:${raw}`);
  return parseVersioned(raw);
}

/** `[source:]flavor@X.Y.Z` */
function parseVersioned(raw: string): VersionedSpec {
  if (/\s/.test(raw)) throw usage(raw, "contains whitespace");
  let source: VersionedSource | null = null;
  let rest = raw;
  const colon = raw.indexOf(":");
  if (colon >= 0) {
    const name = raw.slice(0, colon);
    if (!(VERSIONED_SOURCES as readonly string[]).includes(name)) {
      throw usage(raw, `unknown source "${name}"`);
    }
    source = name as VersionedSource;
    rest = raw.slice(colon + 1);
  }
  const form = specForm(source);
  const at = rest.indexOf("@");
  if (at < 0) throw usage(raw, `missing @${VERSION} after the flavor`, source ?? undefined);
  const flavor = rest.slice(0, at);
  const version = rest.slice(at + 1);
  if (!(FLAVORS as readonly string[]).includes(flavor)) {
    const lower = flavor.toLowerCase();
    const hint = (FLAVORS as readonly string[]).includes(lower) ? ` (flavors are lower case: ${lower})` : "";
    throw usage(raw, `unknown flavor "${flavor}"${hint}`, source ?? undefined);
  }
  if (!form.flavors?.includes(flavor as Flavor)) {
    throw usage(raw, `${source} has no ${flavor} servers`, source ?? undefined);
  }
  if (!VERSION_RE.test(version)) {
    throw usage(raw, `version "${version}" is not X.Y.Z`, source ?? undefined);
  }
  return { kind: "versioned", raw, source, flavor: flavor as Flavor, version };
}

/** `build:<repo>@<ref>`: the last `@` separates the ref, so `git@host:org/repo@ref` works. */
export function parseBuildSpec(text: string): BuildSpec {
  const raw = text.trim();
  const body = raw.slice("build:".length);
  const at = body.lastIndexOf("@");
  const fail = (what: string) => usage(raw, what, "build");
  if (body === "" || at === 0) throw fail("repository is empty");
  if (at < 0) throw fail("missing @<ref> (a commit, tag or branch)");
  const repo = body.slice(0, at);
  const ref = body.slice(at + 1);
  if (ref === "") throw fail("ref after @ is empty");
  // git would read a repository starting with "-" as an option (e.g. -u<command>: an upload-pack).
  if (repo.startsWith("-")) throw fail(`repository "${repo}" starts with "-" (give a path or URL)`);
  if (ref.startsWith("-") || /\s|\.\.|[~^:?*[\\]/.test(ref) || ref.includes("@{")) {
    throw fail(`ref "${ref}" is not a commit, tag or branch name`);
  }
  return { kind: "build", raw, source: "build", repo, ref };
}

/** Compares dotted versions numerically: -1, 0 or 1. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}
