import fs from "node:fs";
import path from "node:path";
import { getDMMF } from "@prisma/internals";
import { describe, expect, it } from "vitest";

/**
 * The app runs on SQLite or PostgreSQL from one build (lib/db/index.ts), through a client generated from each schema.
 * Both must define the same models, columns, defaults, keys and indexes, or a query that works on one would
 * fail or read differently on the other. A change to one schema without the other fails here
 * (prisma/postgresql/README.md says how to change both).
 */
const projectRoot = path.resolve(import.meta.dirname, "..", "..");

async function datamodel(schemaFile: string) {
  const dmmf = await getDMMF({ datamodel: fs.readFileSync(path.join(projectRoot, schemaFile), "utf8") });
  const { models, enums, types, indexes } = dmmf.datamodel as typeof dmmf.datamodel & { indexes?: unknown[] };
  return { models, enums, types, indexes: indexes ?? [] };
}

describe("prisma/schema.prisma (SQLite) and prisma/postgresql/schema.prisma", () => {
  it("define the same models with the same columns, defaults, relations, keys and indexes", async () => {
    const sqlite = await datamodel("prisma/schema.prisma");
    const postgresql = await datamodel("prisma/postgresql/schema.prisma");
    expect(postgresql.models.map((model) => model.name)).toEqual(sqlite.models.map((model) => model.name));
    for (const model of sqlite.models) {
      const twin = postgresql.models.find((candidate) => candidate.name === model.name);
      expect(twin, `model ${model.name}`).toEqual(model);
    }
    expect(postgresql.enums).toEqual(sqlite.enums);
    expect(postgresql.types).toEqual(sqlite.types);
    expect(postgresql.indexes).toEqual(sqlite.indexes);
  });

  it("each have a migration history, PostgreSQL's as its own folder of migrations", () => {
    const folders = (dir: string) =>
      fs
        .readdirSync(path.join(projectRoot, dir), { withFileTypes: true })
        .filter(
          (entry) => entry.isDirectory() && fs.existsSync(path.join(projectRoot, dir, entry.name, "migration.sql")),
        )
        .map((entry) => entry.name);
    expect(folders("prisma/migrations").length).toBeGreaterThan(0);
    expect(folders("prisma/postgresql/migrations").length).toBeGreaterThan(0);
  });
});
