// `serve --workers N`: one service whatever worker a request lands on. Real processes (the compiled
// binary, as an operator runs it), a real database (SQLite file, or PostgreSQL by test/backend.ts),
// and requests on fresh connections so the kernel spreads them over the workers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { backend, databasesOfThisFile, until } from "../backend";
import { cli, cliJson, readStderrUntil, type Server, startServer, TEST_SERVER_POSTGRES_CONNECTIONS, trustlist, workspace } from "../cli-helpers";
import { Receiver } from "../webhook-receiver";

const databases = databasesOfThisFile();
const onSqlite = backend === "sqlite" ? test : test.skip;
const onPostgres = backend === "postgres" ? test : test.skip;

let binary = "";
beforeAll(() => {
  binary = trustlist();
});

/** One request on a connection of its own. */
async function fresh(base: string, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("connection", "close");
  return fetch(`${base}${path}`, { ...init, headers, keepalive: false });
}

async function statuses(count: number, request: () => Promise<Response>, concurrency = 8): Promise<number[]> {
  const out: number[] = [];
  let started = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < count) {
        started++;
        const response = await request();
        await response.arrayBuffer();
        out.push(response.status);
      }
    }),
  );
  return out;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const check = (id: string) => `/v1/blacklist/check?provider=discord&id=${id}`;

/** A running `serve --workers N` whose stdout (the JSON log lines) is collected as it comes. */
interface Fleet extends Server {
  adminKey: string;
  db: string;
  log(): string;
  workerPids(): Map<number, number>;
}

async function startFleet(workers: number, extra: string[] = []): Promise<Fleet> {
  const db = backend === "sqlite" ? workspace().db : await databases.location();
  const server = await startServer([binary], db, undefined, true, ["--workers", String(workers), "--access-log", "on", ...extra]);
  let stdout = "";
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of server.proc.stdout as ReadableStream<Uint8Array>) stdout += decoder.decode(chunk);
  })();
  return {
    ...server,
    db,
    adminKey: server.stderr.match(/tl_live_\w{32}/)![0],
    log: () => stdout,
    workerPids() {
      const pids = new Map<number, number>();
      for (const line of stdout.split("\n")) {
        if (!line.includes('"worker listening"')) continue;
        const { worker, pid } = JSON.parse(line) as { worker: number; pid: number };
        pids.set(worker, pid);
      }
      return pids;
    },
  };
}

/** Ends what a failed test left running of a fleet: its supervisor, and workers that outlived it. */
function killFleet(fleet: Fleet): void {
  if (fleet.proc.exitCode === null && fleet.proc.signalCode === null) fleet.proc.kill("SIGKILL");
  for (const pid of fleet.workerPids().values()) {
    try {
      // Only a process that still runs this test's binary: never a pid the system gave to another.
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith(binary)) process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** Workers that wrote an access line for a request with key `keyId` since `from` (an offset into the log). */
function workersServing(fleet: Fleet, from: number, keyId: string): Set<number> {
  const seen = new Set<number>();
  for (const line of fleet.log().slice(from).split("\n")) {
    if (!line.includes('"msg":"request"') || !line.includes(`"key_id":"${keyId}"`)) continue;
    seen.add((JSON.parse(line) as { worker: number }).worker);
  }
  return seen;
}

for (const workers of [2, 3]) {
  describe(`serve --workers ${workers} on ${backend}`, () => {
    let fleet: Fleet;
    beforeAll(async () => {
      fleet = await startFleet(workers);
    });
    afterAll(async () => {
      if (fleet) await fleet.stop();
    });

    test("/healthz counts the workers up; every log line names its worker", async () => {
      expect(await (await fresh(fleet.base, "/healthz")).json()).toEqual({ ok: true, workers });
      expect(await until(() => fleet.workerPids().size === workers, 5000)).toBe(true);
      for (const line of fleet.log().trim().split("\n")) expect(typeof JSON.parse(line).worker).toBe("number");
    });

    test("a revoke through one worker is refused by every worker from the next request", async () => {
      cliJson(fleet.db, "accounts", "create", "--name", "revoked-guild", "--tier", "enterprise");
      const { id, key } = cliJson(fleet.db, "keys", "create", "--account", "revoked-guild", "--rate-tier", "partner");
      const from = fleet.log().length;
      // Every worker has the key in its cache.
      expect(new Set(await statuses(30, () => fresh(fleet.base, check("1"), { headers: bearer(key) })))).toEqual(new Set([200]));
      const revoked = await fresh(fleet.base, `/v1/admin/keys/${id}`, { method: "DELETE", headers: bearer(fleet.adminKey) });
      expect(revoked.status).toBe(200);
      const after = await statuses(40, () => fresh(fleet.base, check("1"), { headers: bearer(key) }));
      expect(after).toEqual(new Array(40).fill(401));
      // The kernel spread those requests over every worker (the access lines name them).
      await until(() => workersServing(fleet, from, id).size === workers, 10_000);
      expect(workersServing(fleet, from, id).size).toBe(workers);
    });

    test("a rotation and a suspension from the CLI apply on every worker from the next request", async () => {
      cliJson(fleet.db, "accounts", "create", "--name", "cli-guild", "--tier", "enterprise");
      const { id, key } = cliJson(fleet.db, "keys", "create", "--account", "cli-guild", "--rate-tier", "partner");
      const other = cliJson(fleet.db, "keys", "create", "--account", "cli-guild", "--rate-tier", "partner");
      await statuses(20, () => fresh(fleet.base, check("2"), { headers: bearer(key) }));
      await statuses(20, () => fresh(fleet.base, check("2"), { headers: bearer(other.key) }));
      const rotated = cliJson(fleet.db, "keys", "rotate", id);
      expect(await statuses(40, () => fresh(fleet.base, check("2"), { headers: bearer(key) }))).toEqual(new Array(40).fill(401));
      expect(new Set(await statuses(10, () => fresh(fleet.base, check("2"), { headers: bearer(rotated.key) })))).toEqual(new Set([200]));
      expect(cli(fleet.db, "accounts", "update", "cli-guild", "--suspend").code).toBe(0);
      expect(await statuses(40, () => fresh(fleet.base, check("2"), { headers: bearer(other.key) }))).toEqual(new Array(40).fill(402));
    });

    test("a write through one worker is seen by the checks of every worker", async () => {
      cliJson(fleet.db, "accounts", "create", "--name", "writer", "--tier", "enterprise");
      const { key } = cliJson(fleet.db, "keys", "create", "--account", "writer", "--rate-tier", "partner", "--scope", "write");
      const subject = `9${workers}0001`;
      // Every worker has answered "not banned" for it before (its caches hold the answer).
      await statuses(20, () => fresh(fleet.base, check(subject), { headers: bearer(key) }));
      const added = await fresh(fleet.base, "/v1/partner/blacklist", {
        method: "POST",
        headers: { ...bearer(key), "content-type": "application/json" },
        body: JSON.stringify({ provider: "discord", provider_user_id: subject, severity: "ban", reason_code: "scam_trade" }),
      });
      expect(added.status).toBe(201);
      const answers = await Promise.all(
        Array.from({ length: 40 }, async () => (await (await fresh(fleet.base, check(subject), { headers: bearer(key) })).json()) as { banned: boolean }),
      );
      expect(answers.every((answer) => answer.banned)).toBe(true);
    });

    test(`a daily quota of 100 admits at most 100 + ${workers - 1} of 200 calls over fresh connections`, async () => {
      cliJson(fleet.db, "accounts", "create", "--name", "quota-guild", "--tier", "free", "--daily-quota", "100");
      const { key } = cliJson(fleet.db, "keys", "create", "--account", "quota-guild", "--burst", "1000");
      const got = await statuses(200, () => fresh(fleet.base, check("3"), { headers: bearer(key) }));
      const admitted = got.filter((status) => status === 200).length;
      expect(admitted).toBeGreaterThanOrEqual(100);
      expect(admitted).toBeLessThanOrEqual(100 + workers - 1);
      expect(got.filter((status) => status !== 200).every((status) => status === 429)).toBe(true);
    });

    test("a key's burst holds across workers; one connection still gets the whole burst", async () => {
      cliJson(fleet.db, "accounts", "create", "--name", "burst-guild", "--tier", "enterprise");
      // Free rate tier: 5 a second, bursts of 20.
      const spread = cliJson(fleet.db, "keys", "create", "--account", "burst-guild", "--rate-tier", "free");
      const started = performance.now();
      const got = await statuses(80, () => fresh(fleet.base, check("4"), { headers: bearer(spread.key) }));
      const seconds = (performance.now() - started) / 1000;
      const admitted = got.filter((status) => status === 200).length;
      expect(admitted).toBeGreaterThanOrEqual(20);
      // The burst plus what refilled meanwhile: the shared bucket is exact.
      expect(admitted).toBeLessThanOrEqual(20 + Math.ceil(5 * seconds));

      const single = cliJson(fleet.db, "keys", "create", "--account", "burst-guild", "--rate-tier", "free");
      const oneConnection: number[] = [];
      for (let i = 0; i < 20; i++) oneConnection.push((await fetch(`${fleet.base}${check("5")}`, { headers: bearer(single.key) })).status);
      expect(oneConnection).toEqual(new Array(20).fill(200));
    });

    test("/metrics answers the totals of every worker", async () => {
      const scrape = async () => (await (await fresh(fleet.base, "/metrics", { headers: bearer(fleet.adminKey) })).text()).match(/route="\/healthz",status="200"} (\d+)/);
      const before = Number((await scrape())?.[1] ?? 0);
      await statuses(30, () => fresh(fleet.base, "/healthz"));
      for (let i = 0; i < 5; i++) expect(Number((await scrape())![1])).toBe(before + 30);
      const text = await (await fresh(fleet.base, "/metrics", { headers: bearer(fleet.adminKey) })).text();
      expect(text).toContain(`trustlist_workers_up ${workers}`);
    });

    onSqlite("usage counts: every worker's reach the database, written every 10 s, so a steady load leaves the file alone in between", async () => {
      cliJson(fleet.db, "accounts", "create", "--name", "usage-guild", "--tier", "enterprise");
      const { key } = cliJson(fleet.db, "keys", "create", "--account", "usage-guild", "--burst", "1000");
      // Another connection's commit moves data_version: each one made every worker drop its page
      // cache and its map of the file (src/jobs/index.ts). A flush that finds the WAL copied back
      // starts it afresh, which moves data_version too, a moment before its commit: a loaded
      // machine (two busy loops beside this test) showed the two 53 ms apart. So a change less than
      // 500 ms after the one before belongs to the same flush.
      const watcher = new Database(fleet.db, { readonly: true });
      const version = () => (watcher.query("PRAGMA data_version").get() as { data_version: number }).data_version;
      const changedAt: number[] = [];
      let calls = 0;
      try {
        let last = version();
        const started = performance.now();
        // A call every 50 ms for 6 s, each on a fresh connection (spread over the workers).
        while (performance.now() - started < 6000) {
          expect((await fresh(fleet.base, check(String(600 + (calls % 7))), { headers: bearer(key) })).status).toBe(200);
          calls++;
          const now = version();
          if (now !== last) changedAt.push(performance.now() - started);
          last = now;
          await Bun.sleep(50);
        }
      } finally {
        watcher.close();
      }
      const flushes = changedAt.filter((at, i) => i === 0 || at - changedAt[i - 1]! > 500).length;
      // In 6 s each worker flushes at most once (every second, the changes seen were 4 in 4 s).
      if (flushes > workers) console.error(`data_version changed at ${changedAt.map((at) => `${Math.round(at)} ms`).join(", ")}`);
      expect(flushes).toBeLessThanOrEqual(workers);
      const counted = async () => {
        const usage = (await (await fresh(fleet.base, "/v1/account/usage", { headers: bearer(key) })).json()) as { by_endpoint: Array<{ endpoint: string; count: number }> };
        return usage.by_endpoint.find((e) => e.endpoint === "GET /v1/blacklist/check")?.count ?? 0;
      };
      // Whichever worker answers, the others' calls are in the database by their next flush: within
      // 10 s, or 20 s when that flush met the write lock and waited for the tick after.
      expect(await until(async () => (await counted()) === calls, 25_000)).toBe(true);
    }, 45_000);

    onPostgres("each process keeps --postgres-connections pooled connections, one that listens for commits and at most one for locks", async () => {
      const name = new URL(fleet.db).pathname.slice(1);
      const counter = new SQL(fleet.db, { max: 1 });
      try {
        const connections = async () =>
          (await counter`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ${name} AND pid <> pg_backend_pid()`)[0].n as number;
        // The supervisor and each worker: its pool and its listening connection, and its lock
        // session once it has run a job (db/postgres.ts, `exclusive`).
        const processes = workers + 1;
        const fewest = processes * (TEST_SERVER_POSTGRES_CONNECTIONS + 1);
        expect(await until(async () => (await connections()) >= fewest, 10_000)).toBe(true);
        expect(await connections()).toBeLessThanOrEqual(processes * (TEST_SERVER_POSTGRES_CONNECTIONS + 2));
      } finally {
        await counter.close();
      }
    });
  });
}

describe(`serve --workers 2 on ${backend}: life of the workers`, () => {
  test("20,000 lapsed entries expire once each, however many workers are asked to run the job", async () => {
    const fleet = await startFleet(2);
    try {
      const file = join(workspace().dir, "lapsed.jsonl");
      const day = 86_400_000;
      const lines: string[] = [];
      for (let i = 0; i < 20_000; i++) {
        lines.push(
          JSON.stringify({
            type: "entry",
            provider: "discord",
            provider_user_id: `7${String(i).padStart(8, "0")}`,
            severity: "ban",
            scope: "global",
            reason_code: "scam_trade",
            issued_at: new Date(Date.now() - 2 * day).toISOString(),
            expires_at: new Date(Date.now() - day).toISOString(),
          }),
        );
      }
      writeFileSync(file, lines.join("\n") + "\n");
      expect(cli(fleet.db, "import", file).code).toBe(0);
      const runs = await Promise.all(
        Array.from({ length: 6 }, () => fresh(fleet.base, "/v1/admin/jobs/expire-entries", { method: "POST", headers: bearer(fleet.adminKey) })),
      );
      expect(runs.every((run) => run.status === 200 || run.status === 409)).toBe(true);
      expect(runs.some((run) => run.status === 200)).toBe(true);
      // A run may still be going on the worker that answered 409 to the others: ask until one finds nothing.
      expect(
        await until(async () => {
          const run = await fresh(fleet.base, "/v1/admin/jobs/expire-entries", { method: "POST", headers: bearer(fleet.adminKey) });
          return run.status === 200 && ((await run.json()) as { worked: number }).worked === 0;
        }, 20_000),
      ).toBe(true);
      const feedQuery = "SELECT count(*) AS rows, count(DISTINCT entry_id) AS entries FROM blacklist_changes WHERE type = 'expired'";
      const activeQuery = "SELECT count(*) AS n FROM blacklist_entries WHERE status = 'active'";
      let feed: unknown;
      let active: unknown;
      if (backend === "sqlite") {
        const sqlite = new Database(fleet.db, { readonly: true });
        feed = sqlite.query(feedQuery).get();
        active = sqlite.query(activeQuery).get();
        sqlite.close();
      } else {
        const sql = new SQL(fleet.db, { max: 1 });
        const [f] = await sql.unsafe(feedQuery);
        const [a] = await sql.unsafe(activeQuery);
        feed = { rows: Number(f.rows), entries: Number(f.entries) };
        active = { n: Number(a.n) };
        await sql.close();
      }
      expect(feed).toEqual({ rows: 20_000, entries: 20_000 });
      expect(active).toEqual({ n: 0 });
    } finally {
      expect(await fleet.stop()).toBe(0);
    }
  }, 60_000);

  test("a worker killed with SIGKILL: the others answer within a second and it is started again; SIGTERM then exits 0", async () => {
    const fleet = await startFleet(2);
    try {
      expect(await until(() => fleet.workerPids().size === 2, 5000)).toBe(true);
      const victim = fleet.workerPids().get(2)!;
      process.kill(victim, "SIGKILL");
      const killedAt = performance.now();
      // Connections the kernel had queued on the dying worker's socket are reset; within a second
      // every new one goes to the other: 20 in a row on fresh connections all answer.
      const allAnswer = async () => (await statuses(20, () => fresh(fleet.base, "/healthz"))).every((status) => status === 200);
      expect(await until(allAnswer, 1000 - (performance.now() - killedAt))).toBe(true);
      // Started again at once (about 0.25 s to listening on an idle 2-core machine; the bound here
      // leaves room for a machine busy with other test runs).
      expect(
        await until(async () => {
          const health = (await (await fresh(fleet.base, "/healthz")).json()) as { workers: number };
          return health.workers === 2 && fleet.workerPids().get(2) !== victim;
        }, 5000),
      ).toBe(true);
      expect(fleet.log()).toContain('"msg":"worker exited","worker":2');
      expect(fleet.log()).toContain('"msg":"worker restarted","worker":2');
      expect(await fleet.stop()).toBe(0);
      expect(fleet.log()).toContain('"msg":"stopped","worker":1');
      expect(fleet.log()).toContain('"msg":"stopped","worker":2');
    } finally {
      killFleet(fleet);
    }
  });

  test("the directory answers alike on every worker, after creators are imported and after the worker that built it is killed", async () => {
    const fleet = await startFleet(2);
    try {
      expect(await until(() => fleet.workerPids().size === 2, 5000)).toBe(true);
      const { dir } = workspace();
      const importCreators = (handles: string[]) => {
        const file = join(dir, `${handles[0]}.jsonl`);
        writeFileSync(file, handles.map((handle) => JSON.stringify({ type: "creator", handle, verification_level: 0, joined_at: "2026-01-01T00:00:00Z" })).join("\n") + "\n");
        const ran = cli(fleet.db, "import", file);
        expect(ran.code).toBe(0);
      };
      /** The handles matching `q` (sorted) on each of 20 fresh connections (the kernel spreads them over the workers). */
      const everyAnswer = async (q: string) =>
        Promise.all(
          Array.from({ length: 20 }, async () => {
            const page = (await (await fresh(fleet.base, `/v1/public/directory?q=${q}`)).json()) as { items: Array<{ handle: string }> };
            return page.items
              .map((item) => item.handle)
              .sort()
              .join(",");
          }),
        );
      const allFind = (q: string, handles: string) => async () => (await everyAnswer(q)).every((found) => found === handles);
      importCreators(["zephyrcraft", "zephyrforge"]);
      expect(await until(allFind("zephyr", "zephyrcraft,zephyrforge"), 5000)).toBe(true);
      // Whichever worker built the index the other now reads: both are killed in turn, and each
      // started again answers with what was imported meanwhile.
      for (const number of [1, 2]) {
        const victim = fleet.workerPids().get(number)!;
        process.kill(victim, "SIGKILL");
        expect(await until(() => (fleet.workerPids().get(number) ?? victim) !== victim, 5000)).toBe(true);
        importCreators([`zephyrmade${number}`]);
        const expected = ["zephyrcraft", "zephyrforge", "zephyrmade1", ...(number === 2 ? ["zephyrmade2"] : [])].join(",");
        expect(await until(allFind("zephyr", expected), 5000)).toBe(true);
      }
      expect(await fleet.stop()).toBe(0);
    } finally {
      killFleet(fleet);
    }
  }, 30_000);

  onSqlite("a second serve on the same database file exits 1 naming the file, with or without workers", async () => {
    const fleet = await startFleet(2);
    try {
      for (const extra of [[], ["--workers", "2"]]) {
        const second = Bun.spawn([binary, "serve", "--port", "0", "--db", fleet.db, "--access-log", "off", ...extra], { stdout: "pipe", stderr: "pipe" });
        const { text, exited } = await readStderrUntil(second, (t) => t.includes("listening on"));
        if (!exited) second.kill("SIGKILL");
        expect(await second.exited).toBe(1);
        expect(text).toContain(fleet.db);
      }
      expect((await fresh(fleet.base, "/healthz")).status).toBe(200);
    } finally {
      await fleet.stop();
    }
  });

  test("webhook events written through every worker reach the receiver exactly once", async () => {
    const receiver = new Receiver();
    const fleet = await startFleet(2, ["--allow-private-webhooks"]);
    try {
      cliJson(fleet.db, "accounts", "create", "--name", "hooks", "--tier", "pro");
      const reader = cliJson(fleet.db, "keys", "create", "--account", "hooks", "--rate-tier", "partner").key as string;
      const writer = cliJson(fleet.db, "keys", "create", "--account", "hooks", "--rate-tier", "partner", "--scope", "write").key as string;
      const endpoint = await fresh(fleet.base, "/v1/webhooks", {
        method: "POST",
        headers: { ...bearer(reader), "content-type": "application/json" },
        body: JSON.stringify({ url: receiver.url("/workers"), events: ["blacklist.added"] }),
      });
      expect(endpoint.status).toBe(201);
      let n = 0;
      const added = await statuses(50, () =>
        fresh(fleet.base, "/v1/partner/blacklist", {
          method: "POST",
          headers: { ...bearer(writer), "content-type": "application/json" },
          body: JSON.stringify({ provider: "roblox", provider_user_id: String(600_000 + n++), severity: "ban", reason_code: "scam_trade" }),
        }),
      );
      expect(added).toEqual(new Array(50).fill(201));
      await receiver.waitFor(() => receiver.at("/workers").length >= 50, 20_000);
      await Bun.sleep(500); // room for a duplicate to show
      const requests = receiver.at("/workers");
      expect(requests).toHaveLength(50);
      expect(new Set(requests.map((r) => r.headers["webhook-id"])).size).toBe(50);
    } finally {
      receiver.stop();
      expect(await fleet.stop()).toBe(0);
    }
  }, 30_000);

  test("workers whose supervisor was killed drain and stop by themselves", async () => {
    const fleet = await startFleet(2);
    try {
      expect(await until(() => fleet.workerPids().size === 2, 5000)).toBe(true);
      const pids = [...fleet.workerPids().values()];
      fleet.proc.kill("SIGKILL");
      await fleet.proc.exited;
      const alive = (pid: number) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      expect(await until(() => pids.every((pid) => !alive(pid)), 5000)).toBe(true);
    } finally {
      killFleet(fleet);
    }
  });

  test("--workers 1 is the single process: no supervisor, no worker numbers", async () => {
    const { db } = workspace();
    const server = await startServer([binary], db, undefined, true, ["--workers", "1", "--access-log", "on"]);
    try {
      expect(await (await fresh(server.base, "/healthz")).json()).toEqual({ ok: true });
      expect(server.stderr).not.toContain("workers)");
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const log = await new Response(server.proc.stdout as ReadableStream).text();
    expect(log).toContain('"msg":"listening"');
    expect(log).not.toContain('"worker"');
  });

  test("--workers takes a number from 1 or auto", () => {
    const { db } = workspace();
    for (const bad of ["0", "many", "-1"]) {
      const result = cli(db, "serve", "--port", "0", "--workers", bad);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("--workers");
    }
  });
});
