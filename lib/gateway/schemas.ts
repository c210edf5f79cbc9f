import { z } from "zod";

/** A share link lasts at most a week, a day unless asked otherwise. */
export const SHARE_MAX_SECONDS = 7 * 24 * 3600;
export const SHARE_DEFAULT_SECONDS = 24 * 3600;

/**
 * The gateway's request and answer schemas: they validate the routes and, registered by id, are the components of
 * the API description (lib/openapi/schema-modules.ts).
 */
export const ticketQuerySchema = z.object({
  name: z
    .string()
    .min(1)
    .max(63)
    .describe("The preview name's label under the gateway's domain")
    .meta({ example: "feature-x--demo" }),
  to: z.string().max(2048).optional().describe("The path to go back to on the preview").meta({ example: "/web" }),
});

export const admitQuerySchema = z.object({
  ticket: z.string().max(1024).optional().describe("The ticket the dashboard signed for this name"),
  to: z.string().max(2048).optional().describe("The path to go back to on the preview"),
});

export const shareSecretParamsSchema = z.object({
  secret: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9_-]+$/, "must be a share link's secret")
    .describe("The share link's secret: the last segment of the `url` POST /builds/{build_id}/share answered"),
});

export const SHARE_SCOPES = ["branch", "build"] as const;
export type ShareScope = (typeof SHARE_SCOPES)[number];

const shareScope = z
  .enum(SHARE_SCOPES, { error: 'must be "branch" or "build"' })
  .describe(
    "branch: the link opens the newest live build of the build's first repository at its ref, at the branch's name, across pushes and rebuilds; build: it opens this build only, at its own name",
  );

export const createShareSchema = z
  .strictObject({
    scope: shareScope
      .optional()
      .describe(
        "What the link opens: branch (the default for a build of a branch) follows the branch's newest live build; build (the default for a build of a commit) stays on this build",
      )
      .meta({ example: "branch" }),
    expires_in_seconds: z
      .number()
      .int("must be a whole number of seconds")
      .min(1, "must be at least 1")
      .max(SHARE_MAX_SECONDS, `must be at most ${SHARE_MAX_SECONDS} (7 days)`)
      .default(SHARE_DEFAULT_SECONDS)
      .describe("How long the link opens the preview, in seconds (at most 7 days)")
      .meta({ example: 86400 }),
  })
  .meta({ id: "CreateShare" });

export const shareIdParamsSchema = z.object({
  build_id: z.string().describe("The build's id").meta({ example: "3f9a1c2b7d4e5f60" }),
  share_id: z.string().max(64).describe("The share's id").meta({ example: "9c1e5a0b7f3d2e41" }),
});

export const shareSchema = z
  .object({
    id: z.string(),
    build_id: z.string().describe("The build the link was made from"),
    scope: shareScope,
    created_at: z.string().describe("ISO 8601"),
    expires_at: z.string().describe("ISO 8601"),
    created_by: z.string().describe("Who made the link (a display name)"),
  })
  .meta({ id: "PreviewShare" });

export const createdShareSchema = shareSchema
  .extend({ url: z.string().describe("The link: shown this once, only its secret's hash is kept") })
  .meta({ id: "CreatedPreviewShare" });

export const shareListSchema = z.object({ shares: z.array(shareSchema) }).meta({ id: "PreviewShareList" });
