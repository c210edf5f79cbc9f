import { z } from "zod";
import { displayNameKey, isReservedDisplayName } from "./display-names";

export const PASSWORD_MIN_LENGTH = 8;

export const registerUserSchema = z
  .object({
    email: z.email("must be a valid email address").max(254),
    password: z
      .string()
      .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
      // bcrypt reads only the first 72 bytes; a longer password would be silently truncated.
      .refine((password) => Buffer.byteLength(password) <= 72, "must be at most 72 bytes"),
    display_name: z
      .string()
      .trim()
      .min(1, "must not be empty")
      .max(64, "must be at most 64 characters")
      // Shown publicly instead of the email, so it must not be one; no control characters in a name.
      .refine((name) => !name.includes("@"), "must not contain @ (it is shown publicly instead of the email)")
      .refine((name) => !/[\p{Cc}\p{Cf}]/u.test(name), "must not contain control characters")
      .refine((name) => displayNameKey(name) !== "", "must contain a letter or a digit")
      // The service's own names (`build service`, the creator of automatic builds, ...), in any spelling.
      .refine((name) => !isReservedDisplayName(name), "is reserved: it is one of the service's own names")
      .optional()
      .describe(
        "Shown publicly as the creator of builds; the email's local part when not given (numbered, ana-2, when taken). " +
          "Refused when another user's name reads the same ignoring case, spacing, accents and lookalike letters (409), or it is one of the service's own names (400)",
      ),
  })
  .meta({ id: "RegisterUser" });

/** The OAuth2 password form of POST /users/token: `username` is the email. */
export const tokenRequestSchema = z
  .object({
    username: z.string().min(1, "is required (the account's email)"),
    password: z.string().min(1, "is required"),
  })
  .meta({ id: "TokenRequest" });

export const userSchema = z
  .object({
    id: z.number().int(),
    email: z.email(),
    display_name: z.string(),
    role: z
      .enum(["admin", "user"])
      .describe(
        "admin: the first user, those made admins by an admin (PATCH /users/{user_id}) or with `npm run users:admin`, and (REGISTRATION=closed only) those in ADMIN_EMAILS; may act on every build and import rates",
      ),
    is_active: z.boolean(),
    created_at: z.iso.datetime().meta({ example: "2026-11-24T19:00:02.123Z" }),
  })
  .meta({ id: "User" });

export const tokenSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal("bearer"),
    expires_in: z.number().int().describe("Seconds until the token expires"),
  })
  .meta({ id: "Token" });

export const userIdParamsSchema = z.object({
  user_id: z.coerce.number().int().positive().describe("The user's id"),
});

/** PATCH /users/{user_id}: what an admin may change of another user. */
export const updateUserSchema = z
  .object({ role: z.enum(["admin", "user"]).describe("admin: may act on every build and import rates") })
  .strict()
  .meta({ id: "UpdateUser" });

export type RegisterUser = z.infer<typeof registerUserSchema>;
export type UserView = z.infer<typeof userSchema>;
