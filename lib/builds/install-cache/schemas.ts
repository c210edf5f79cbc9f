import { z } from "zod";

const timestamp = z.iso.datetime().meta({ example: "2026-12-02T01:30:00.000Z" });
const key = z
  .string()
  .regex(/^[0-9a-f]{64}$/, "must be an entry's key: 64 lowercase hexadecimal characters")
  .describe("The entry's key: a SHA-256 of what the install reads (the modules' files, the commands, the images)")
  .meta({ example: "9c1185a5c5e9fc54612808977ee8f548b2258d31a2f1e7f9c4b8e1d0f3a2b6c7" });

export const installCacheEntrySchema = z
  .object({
    key,
    modules: z
      .array(z.string())
      .describe("The modules the install read: those the build listed and those their manifests depend on, sorted"),
    commits: z
      .array(z.object({ repository: z.string(), commit_sha: z.string() }))
      .describe("The commits of the build that saved the entry, by repository"),
    size_bytes: z.number().int().describe("What the entry's folder holds, in bytes"),
    saved_by: z.string().describe("The build whose install was saved"),
    saved_at: timestamp,
    last_used_at: timestamp.describe("Its last restore (or its save): the least recently used goes first"),
    hits: z.number().int().describe("How many builds restored it"),
  })
  .meta({ id: "InstallCacheEntry" });

export const installCacheListSchema = z
  .object({
    host: z
      .string()
      .describe("The builder host (INSTANCE_NAME) that answered: each keeps its own entries, under its builds_root"),
    max_entries: z.number().int().describe("runtime.install_cache.max_entries"),
    max_age_days: z.number().describe("runtime.install_cache.max_age_days"),
    entries: z.array(installCacheEntrySchema).describe("Most recently used first"),
  })
  .meta({ id: "InstallCacheEntries" });

export const installCacheKeyParamsSchema = z.object({ key });

export type InstallCacheEntryView = z.output<typeof installCacheEntrySchema>;
export type InstallCacheListView = z.output<typeof installCacheListSchema>;
