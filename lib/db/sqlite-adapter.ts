import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import type Database from "better-sqlite3";

type Factory = PrismaBetterSQLite3;
type Adapter = Awaited<ReturnType<Factory["connect"]>>;
type Transaction = Awaited<ReturnType<Adapter["startTransaction"]>>;
type Query = Parameters<Transaction["executeRaw"]>[0];

/**
 * Prisma's better-sqlite3 adapter, made to survive a failed COMMIT or ROLLBACK.
 *
 * The adapter runs every Prisma transaction on one connection, one at a time behind a mutex that only the
 * transaction's `commit()` or `rollback()` releases. Prisma calls those after its own `COMMIT`/`ROLLBACK`
 * statement succeeded, and not at all when the statement throws. A full disk makes both throw: a write fails
 * with SQLITE_FULL, SQLite rolls the transaction back by itself, and Prisma's ROLLBACK then fails with "no
 * transaction is active"; or the COMMIT itself fails with SQLITE_FULL and leaves the transaction open, holding
 * the file's write lock. Either way the mutex was never released, so every later transaction (a registration,
 * POST /rates/, an import) waited for it until the server restarted, and an open transaction also kept the
 * builds' own connection (lib/db/sqlite.ts) from writing.
 *
 * Here a failed COMMIT rolls back what is left and releases the connection before the error goes up, and a
 * ROLLBACK of a transaction SQLite already rolled back counts as done. A transaction that finds the
 * connection still inside one nobody owns (it cannot happen unless the above missed a case) ends it first.
 *
 * And its transactions take the write lock when they begin (beginTransactionsImmediately).
 */
export function recoveringSqliteAdapter(url: string): Factory {
  const factory = new PrismaBetterSQLite3({ url });
  // Transactions asked for and not yet ended, whether waiting for the adapter's mutex or holding it.
  let openTransactions = 0;

  const wrapTransaction = (transaction: Transaction, connection: Database.Database): Transaction => {
    let released = false;
    const release = async (finish: () => Promise<void>) => {
      if (released) return;
      released = true;
      openTransactions--;
      await finish();
    };
    const rollBackWhatIsLeft = () => {
      if (connection.inTransaction) connection.exec("ROLLBACK");
    };
    const executeRaw = async (query: Query): Promise<number> => {
      const statement = query.sql.trim().toUpperCase();
      if (statement !== "COMMIT" && statement !== "ROLLBACK") return transaction.executeRaw(query);
      try {
        return await transaction.executeRaw(query);
      } catch (error) {
        try {
          rollBackWhatIsLeft();
        } finally {
          // Prisma calls neither commit() nor rollback() after its statement failed: release here.
          await release(() => transaction.rollback());
        }
        if (statement === "ROLLBACK") return 0; // nothing is left open: the rollback did what it was asked
        throw error;
      }
    };
    return new Proxy(transaction, {
      get(target, property) {
        if (property === "executeRaw") return executeRaw;
        if (property === "commit") return () => release(() => target.commit());
        if (property === "rollback") return () => release(() => target.rollback());
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  };

  const wrapAdapter = (adapter: Adapter): Adapter => {
    const connection = (adapter as unknown as { client?: Database.Database }).client;
    if (!connection || typeof connection.exec !== "function") {
      throw new Error(
        "@prisma/adapter-better-sqlite3 no longer exposes its connection as `client`: review lib/db/sqlite-adapter.ts",
      );
    }
    beginTransactionsImmediately(connection);
    const startTransaction: Adapter["startTransaction"] = async (isolationLevel) => {
      // Only a missed case could leave this; BEGIN would fail on it and keep the adapter's mutex for ever.
      if (openTransactions === 0 && connection.inTransaction) connection.exec("ROLLBACK");
      // Counted from the request on: one that waits for the mutex must not take the first one's BEGIN for a stray.
      openTransactions++;
      try {
        return wrapTransaction(await adapter.startTransaction(isolationLevel), connection);
      } catch (error) {
        openTransactions--;
        throw error;
      }
    };
    return new Proxy(adapter, {
      get(target, property) {
        if (property === "startTransaction") return startTransaction;
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  };

  return new Proxy(factory, {
    get(target, property) {
      if (property === "connect") return async () => wrapAdapter(await target.connect());
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * The adapter opens Prisma's transactions with a plain (deferred) BEGIN, which takes the write lock only at the
 * first write. A transaction that reads first (saveHomePageRates looks at what is stored, then writes) and
 * meets a write committed by another connection in between (lib/db/sqlite.ts's, or another process's) fails
 * with SQLITE_BUSY at once: in WAL mode its snapshot is stale, so no busy timeout can help. The soak suite's
 * POST /rates/ answered 503 "database is busy" this way under load. BEGIN IMMEDIATE takes the lock first, waiting
 * out a writer within the busy timeout, so the transaction's reads and writes see one state.
 */
function beginTransactionsImmediately(connection: Database.Database) {
  const prepare = connection.prepare.bind(connection) as (source: string) => Database.Statement;
  (connection as unknown as { prepare: (source: string) => Database.Statement }).prepare = (source: string) =>
    prepare(source === "BEGIN" ? "BEGIN IMMEDIATE" : source);
}
