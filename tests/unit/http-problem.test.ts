import { describe, expect, it } from "vitest";
import { invalidRequest } from "@/lib/http/problem";
import { registerUserSchema } from "@/lib/users/schemas";

/** How a request that fails its zod schema becomes a 400 problem: one entry per field, every distinct message. */
describe("invalidRequest", () => {
  const problemOf = (body: unknown, source = "body") => {
    const result = registerUserSchema.safeParse(body);
    if (result.success) throw new Error("expected the body to be refused");
    return invalidRequest(result.error, source);
  };

  it("names a field once when its value breaks several rules, with each rule's message", () => {
    // A zero-width space alone: a format character, and no letter or digit.
    const problem = problemOf({ email: "ana@example.com", password: "long enough", display_name: "\u200b" });
    expect(problem.status).toBe(400);
    expect(problem.options.errors).toEqual([
      { field: "body.display_name", message: "must not contain control characters; must contain a letter or a digit" },
    ]);
    expect(problem.detail).toBe(
      "Invalid body.display_name: must not contain control characters; must contain a letter or a digit.",
    );
  });

  it("still counts and names every distinct field", () => {
    const problem = problemOf({ email: "not an email", password: "short", display_name: "\u200b" });
    expect(problem.options.errors?.map((error) => error.field)).toEqual([
      "body.email",
      "body.password",
      "body.display_name",
    ]);
    expect(problem.detail).toBe("The request has 3 invalid fields: body.email, body.password, body.display_name.");
  });
});
