// The database layer on whichever backend the suite runs on (test/backend.ts): write
// transactions (commit, rollback, nesting, turns), other instances' commits, schema versions.
import { describe, expect, test } from "bun:test";
import { openDatabase, type Database } from "../../src/db/database";
import { StoreOpenError } from "../../src/db/errors";
import { ManualClock } from "../../src/clock";
import { Logger } from "../../src/logger";
import { type Job, JobRunner, RanElsewhere } from "../../src/jobs/runner";
import { backend, databasesOfThisFile, until } from "../backend";

const databases = databasesOfThisFile();
const postgresOnly = backend === "postgres" ? test : test.skip;
const open = (location?: string) => databases.open(location);

/** A row count through whichever client the backend has. */
async function countAccounts(database: Database): Promise<number> {
  if (database.dialect === "sqlite") return database.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM accounts").get()!.n;
  const [row] = await database.sql()`SELECT count(*)::int AS n FROM accounts`;
  return row.n;
}

async function insertAccount(database: Database, id: string): Promise<void> {
  if (database.dialect === "sqlite") {
    database.sqlite.run("INSERT INTO accounts (id, name, tier, status, created_at) VALUES (?, ?, 'free', 'active', 1)", [id, id]);
    return;
  }
  await database.sql()`INSERT INTO accounts (id, name, tier, status, created_at) VALUES (${id}, ${id}, 'free', 'active', 1)`;
}

describe(`database layer (${backend})`, () => {
  test("a write commits, a throw rolls the whole transaction back, a nested write joins it", async () => {
    const { database } = await open();
    await database.write(async () => {
      await insertAccount(database, "a1");
      await database.write(() => insertAccount(database, "a2"));
    });
    expect(await countAccounts(database)).toBe(2);
    await expect(
      database.write(async () => {
        await insertAccount(database, "a3");
        await database.write(() => insertAccount(database, "a4"));
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(await countAccounts(database)).toBe(2);
  });

  test("a failed nested write rolls back only itself", async () => {
    const { database } = await open();
    await database.write(async () => {
      await insertAccount(database, "kept");
      await expect(database.write(() => insertAccount(database, "kept"))).rejects.toThrow();
    });
    expect(await countAccounts(database)).toBe(1);
  });

  test("afterCommit runs once the caller's transaction has committed (a nested write's too), never after a rollback, and at once outside one", async () => {
    const { database } = await open();
    const ran: string[] = [];
    let countWhenRun = -1;
    await database.write(async () => {
      await insertAccount(database, "c1");
      database.afterCommit(() => ran.push("outer"));
      await database.write(async () => {
        database.afterCommit(() => ran.push("nested"));
      });
      // Not yet: the transaction is still open.
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(["outer", "nested"]);
    // What it runs after sees the commit from any connection.
    await database.write(async () => {
      await insertAccount(database, "c2");
      database.afterCommit(() => void countAccounts(database).then((n) => (countWhenRun = n)));
    });
    expect(await until(() => countWhenRun === 2, 5_000)).toBe(true);

    await expect(
      database.write(async () => {
        database.afterCommit(() => ran.push("rolled back"));
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    database.afterCommit(() => ran.push("outside"));
    expect(ran).toEqual(["outer", "nested", "outside"]);
    // A later commit does not run what a rolled-back transaction asked for.
    await database.write(() => insertAccount(database, "c3"));
    expect(ran).toEqual(["outer", "nested", "outside"]);
  });

  // SQLite has one connection per process: its writes must take turns. PostgreSQL runs each on a
  // connection of its own and isolates them itself.
  test("concurrent async writes all commit, and on SQLite take turns instead of interleaving", async () => {
    const { database } = await open();
    const order: string[] = [];
    const writer = (name: string) =>
      database.write(async () => {
        order.push(`${name}:start`);
        await insertAccount(database, name);
        await Promise.resolve();
        await insertAccount(database, `${name}-2`);
        order.push(`${name}:end`);
      });
    await Promise.all([writer("x"), writer("y"), writer("z")]);
    if (database.dialect === "sqlite") expect(order).toEqual(["x:start", "x:end", "y:start", "y:end", "z:start", "z:end"]);
    expect(await countAccounts(database)).toBe(6);
  });

  test("another instance's commit reaches this one's listeners, its own does not", async () => {
    const first = await open();
    const second = await open(first.location);
    let external = 0;
    second.database.changes.onExternalCommit(() => external++);
    await second.database.write(() => insertAccount(second.database, "own"));
    second.database.changes.check();
    expect(external).toBe(0);
    await first.database.write(() => insertAccount(first.database, "theirs"));
    // SQLite is asked at the next request; PostgreSQL is told by NOTIFY.
    expect(await until(() => (second.database.changes.check(), external > 0), 10_000)).toBe(true);
    expect(external).toBe(1);
    expect(await countAccounts(second.database)).toBe(2);
  });

  test("a database that is missing, or has no schema, is refused when creating is not allowed", async () => {
    const location = await databases.location({ migrated: false });
    const error = await openDatabase(location, { create: false }).catch((e) => e);
    expect(error).toBeInstanceOf(StoreOpenError);
    expect((error as StoreOpenError).reason).toBe("missing");
    expect((error as Error).message).toContain("trustlist migrate --db");
  });

  test("a schema newer than this build is refused, naming both versions", async () => {
    const { database, location } = await open();
    const future = Date.now() + 365 * 86_400_000;
    if (database.dialect === "sqlite") {
      database.sqlite.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('future', ?)", [future]);
    } else {
      await database.sql()`INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ('future', ${future})`;
    }
    const error = await openDatabase(location).catch((e) => e);
    expect(error).toBeInstanceOf(StoreOpenError);
    expect((error as StoreOpenError).reason).toBe("newer");
    expect((error as Error).message).toMatch(/the database has \d+ migrations .* this build knows \d+ migrations/);
  });
});

describe(`exclusive work (${backend})`, () => {
  test("as many jobs at once as the pool has connections, each writing, all finish", async () => {
    const { database } = await databases.open(undefined, { connections: 3 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let inside = 0;
    const jobs = ["one", "two", "three"].map((name) =>
      database.exclusive(name, async () => {
        inside++;
        await gate;
        await database.write(() => insertAccount(database, name));
      }),
    );
    expect(await until(() => inside === 3, 5_000)).toBe(true);
    release();
    const outcome = await Promise.race([Promise.all(jobs), Bun.sleep(10_000).then(() => "still waiting")]);
    expect(outcome).toEqual([true, true, true]);
    expect(await countAccounts(database)).toBe(3);
  });

  postgresOnly("work of one name runs once at a time in an instance too, and may run again once it ended", async () => {
    const { database } = await open();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = database.exclusive("sweep", () => gate);
    await Bun.sleep(50);
    expect(await database.exclusive("sweep", async () => {})).toBe(false);
    release();
    expect(await first).toBe(true);
    expect(await database.exclusive("sweep", async () => {})).toBe(true);
  });
});

describe(`jobs across instances (${backend})`, () => {
  const log = new Logger({ access: false }, () => {});

  function runnerOn(database: Database, job: Job) {
    return new JobRunner([job], new ManualClock(), log, (name, fn) => database.exclusive(name, fn));
  }

  // One SQLite file is served by one process; PostgreSQL may have several instances.
  test.skipIf(backend !== "postgres")("a fleet job runs on one instance at a time; the other skips the tick", async () => {
    const first = await open();
    const second = await open(first.location);
    let runs = 0;
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const job: Job = { name: "expire-entries", pattern: "* * * * *", scope: "fleet", run: async () => void (runs++, await held) };
    const onFirst = runnerOn(first.database, job).run("expire-entries");
    // Once the first has taken the job's lock and is running it.
    expect(await until(() => runs === 1, 10_000)).toBe(true);
    const onSecond = runnerOn(second.database, { ...job, run: async () => void runs++ });
    const skipped = await onSecond.run("expire-entries").catch((error) => error);
    expect(skipped).toBeInstanceOf(RanElsewhere);
    expect((skipped as Error).message).toContain("running on another instance");
    await onSecond.tick("expire-entries"); // a scheduled tick skips quietly
    finish();
    await onFirst;
    expect(runs).toBe(1);
    // Once the first is done, the next tick may run anywhere.
    expect((await onSecond.run("expire-entries")).job).toBe("expire-entries");
    expect(runs).toBe(2);
  });

  test("an instance job runs on every instance, a fleet job runs when nobody else holds it", async () => {
    const { database } = await open();
    let runs = 0;
    const fleet = runnerOn(database, { name: "prune-usage", pattern: "* * * * *", scope: "fleet", run: () => ++runs });
    const local = runnerOn(database, { name: "flush-metering", pattern: "* * * * *", run: () => ++runs });
    expect((await fleet.run("prune-usage")).worked).toBe(1);
    expect((await local.run("flush-metering")).worked).toBe(2);
  });
});
