// What `trustlist --version` prints: package.json's version and the commit the binary was built
// from. `make release` and `make build` pass the commit in with `bun build --define`; run from the
// source tree, the commit is asked of git; otherwise it is unknown.
import { dirname } from "node:path";
import packageJson from "../package.json" with { type: "json" };

/** Replaced at build time by `--define TRUSTLIST_COMMIT='"<sha>"'`; undeclared otherwise. */
declare const TRUSTLIST_COMMIT: string;

export const VERSION: string = packageJson.version;

/** The commit this program was built from, or null when nobody recorded it. */
export function buildCommit(): string | null {
  if (typeof TRUSTLIST_COMMIT === "string" && TRUSTLIST_COMMIT !== "") return TRUSTLIST_COMMIT;
  // Run from the source tree (`bun src/main.ts`): the checkout's commit. A compiled binary's
  // sources live in a virtual folder, where git finds nothing.
  try {
    const git = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: dirname(import.meta.path), stdout: "pipe", stderr: "ignore" });
    const sha = git.stdout.toString().trim();
    return git.exitCode === 0 && /^[0-9a-f]{7,40}$/.test(sha) ? sha : null;
  } catch {
    return null;
  }
}

export function versionLine(): string {
  return `trustlist ${VERSION} (commit ${buildCommit() ?? "unknown"})`;
}
