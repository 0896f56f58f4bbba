// The rules the code's layout keeps (docs/architecture.md), checked on the source itself: no import
// cycle between files, services that never see HTTP, SQL drivers or which database runs them, and
// no file over 500 lines without its opening comment saying why it is one file.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const SRC = join(ROOT, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

const files = sourceFiles(SRC);
const text = new Map(files.map((f) => [f, readFileSync(f, "utf8")]));

/** Modules a file imports for their values: `import type` and `export type` vanish at run time. */
export function valueImports(source: string): string[] {
  const out: string[] = [];
  const statement = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+["']([^"']+)["']/g;
  for (const match of source.matchAll(statement)) {
    if (match[2]) continue;
    const clause = match[3]!.trim();
    // `import { type A, type B } from …` imports no value either.
    if (/^\{[^}]*\}$/.test(clause) && clause.slice(1, -1).split(",").every((part) => part.trim() === "" || /^type\s/.test(part.trim()))) continue;
    out.push(match[4]!);
  }
  for (const match of source.matchAll(/(?:^|\n)\s*import\s+["']([^"']+)["']/g)) out.push(match[1]!);
  return out;
}

function resolveImport(from: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.js`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

const graph = new Map(files.map((f) => [f, valueImports(text.get(f)!).map((s) => resolveImport(f, s)).filter((p): p is string => p !== null && text.has(p))]));

/** Every cycle of the graph, each named once by its files from the smallest path. */
export function cyclesOf(edges: Map<string, string[]>): string[][] {
  const cycles = new Map<string, string[]>();
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === "open") {
        const cycle = stack.slice(stack.indexOf(next));
        const start = cycle.indexOf([...cycle].sort()[0]!);
        const named = [...cycle.slice(start), ...cycle.slice(0, start)];
        cycles.set(named.join(" -> "), named);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of edges.keys()) if (!state.has(node)) visit(node);
  return [...cycles.values()];
}

const rel = (path: string) => relative(ROOT, path);

test("no two files of src/ import each other's values, directly or through others", () => {
  expect(files.length).toBeGreaterThan(100);
  expect(cyclesOf(graph).map((cycle) => cycle.map(rel).join(" -> "))).toEqual([]);
});

test("the cycle finder finds a cycle", () => {
  expect(valueImports('import { a } from "./a";\nimport type { B } from "./b";\nimport { type C } from "./c";\nexport { d } from "./d";')).toEqual(["./a", "./d"]);
  const edges = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]);
  expect(cyclesOf(edges)).toEqual([["a", "b", "c"]]);
});

describe("services know nothing of HTTP, drivers or which database runs them", () => {
  const services = files.filter((f) => /\/modules\/[^/]+\/service(\.[^/]+)?\.ts$/.test(f));
  test("there are services to check", () => expect(services.length).toBeGreaterThanOrEqual(10));
  for (const file of services) {
    test(rel(file), () => {
      const source = text.get(file)!;
      const imports = [...source.matchAll(/from\s+["']([^"']+)["']/g)].map((m) => m[1]!);
      expect(imports.filter((s) => s === "elysia" || s.startsWith("bun:") || /\/http\//.test(s) || /store\.(sqlite|postgres)$/.test(s) || /db\/(client|postgres)$/.test(s))).toEqual([]);
      expect(source.match(/instanceof\s+(Sqlite|Postgres)\w*/g) ?? []).toEqual([]);
    });
  }
});

test("a file over 500 lines says why in its opening comment", () => {
  const long = files
    .filter((f) => text.get(f)!.split("\n").length > 500)
    .filter((f) => !/^\/\/[^\n]*\bone file\b/im.test(text.get(f)!.split("\n").filter((l) => l.startsWith("//")).join("\n")));
  expect(long.map(rel)).toEqual([]);
});

test("the files the PostgreSQL pass leaves out (the Makefile's SAME_IN_BOTH_PASSES) exist and never open the pass's database", () => {
  const makefile = readFileSync(join(ROOT, "Makefile"), "utf8");
  const list = makefile.match(/^SAME_IN_BOTH_PASSES :=((?:[^\n]*\\\n)*[^\n]*)/m)?.[1];
  expect(list).toBeDefined();
  const listed = list!.replace(/\\\n/g, " ").trim().split(/\s+/);
  expect(listed.length).toBeGreaterThan(0);
  const opensThePassDatabase = /createTestApp|databasesOfThisFile|freshDatabase|liveServer|from "\.\.?\/(?:\.\.\/)?backend"/;
  for (const file of listed) {
    const path = join(ROOT, file);
    expect(existsSync(path)).toBe(true);
    expect(opensThePassDatabase.test(readFileSync(path, "utf8")) ? file : null).toBeNull();
  }
});
