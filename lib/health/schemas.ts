import { z } from "zod";

export const livenessSchema = z
  .object({ status: z.literal("alive") })
  .meta({ id: "Liveness", description: "The process answers HTTP." });

export const readinessSchema = z
  .object({
    status: z.literal("ready"),
    database: z.enum(["sqlite", "postgresql"]).describe("The database this instance runs on (DATABASE_URL)"),
    migrations: z.number().int().describe("How many migrations the database has applied: all this build has"),
  })
  .meta({
    id: "Readiness",
    description: "The instance can serve: its database answers and holds every migration of this build.",
  });

export type Readiness = z.infer<typeof readinessSchema>;
