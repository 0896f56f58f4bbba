// What a PostgreSQL commit tells the other instances (db/postgres.ts): the items its stores noted,
// or "unknown" (null) when they would not fit in a notification, whose payload has a size limit.
import { expect, test } from "bun:test";
import { backend, databasesOfThisFile, until } from "../backend";

const databases = databasesOfThisFile();
const postgresOnly = backend === "postgres" ? test : test.skip;

postgresOnly("a commit tells the others what it noted, or null once it noted more than a notification holds", async () => {
  const { database: writer, location } = await databases.open();
  const { database: listener } = await databases.open(location);
  if (writer.dialect !== "postgres") throw new Error("PostgreSQL only");
  const heard: unknown[] = [];
  listener.changes.onExternalCommit((notes) => heard.push(notes));
  await writer.write(() => writer.note("topic", "one"));
  expect(await until(() => heard.length === 1, 5_000)).toBe(true);
  expect(heard[0]).toEqual({ topic: ["one"] });
  // An import notes a subject per entry: far more than 7,500 bytes of them.
  await writer.write(() => {
    for (let i = 0; i < 100_000; i++) writer.note("topic", ["discord", String(i)]);
  });
  expect(await until(() => heard.length === 2, 5_000)).toBe(true);
  expect(heard[1]).toBeNull();
});
