import { describe, expect, it } from "vitest";
import { describeWebhookUrlProblem, webhookUrlProblem } from "@/lib/rates/webhooks/url";

// The rules the API and the dashboard's form share; the address itself is judged by destination.ts.
describe("a webhook URL's form (lib/rates/webhooks/url.ts)", () => {
  it("takes absolute http and https URLs", () => {
    for (const url of ["https://example.com/hooks/bcv", "http://example.com:8080/", "https://[2001:db8::1]/x?a=1#f"]) {
      expect(webhookUrlProblem(url), url).toBeUndefined();
    }
  });

  it("names what is wrong, in the API's words", () => {
    const said = (url: string) => {
      const problem = webhookUrlProblem(url);
      return problem && describeWebhookUrlProblem(problem);
    };
    expect(said("example.com/hooks")).toBe("is not an absolute URL");
    expect(said("/hooks/bcv")).toBe("is not an absolute URL");
    expect(said("ftp://example.com/")).toBe("must be http or https, not ftp");
    expect(said("javascript:alert(1)")).toBe("must be http or https, not javascript");
    expect(said("https://user:secret@example.com/")).toBe("must not carry a user name or password");
    expect(said("https://user@example.com/")).toBe("must not carry a user name or password");
  });
});
