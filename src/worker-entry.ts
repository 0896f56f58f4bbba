// Where a worker thread's module is, named by its path under src/: next to this file when run from
// source; in a compiled binary every entry point (Makefile `build`) sits under the embedded root
// (`/$bunfs/root/db/...` for src/db/...), and import.meta.url names the binary itself at that
// root. The same relative URL resolves right in both cases.
export function workerEntry(pathUnderSrc: string): string {
  return new URL(`./${pathUnderSrc}`, import.meta.url).href;
}
