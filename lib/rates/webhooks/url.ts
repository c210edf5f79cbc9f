/**
 * What a webhook URL must be before its address is looked at: absolute, http or https, no credentials in it.
 * Pure, so the API (service.ts) and the dashboard's form judge a URL alike; the address itself (public, or
 * allowed by WEBHOOK_ALLOWED_HOSTS) only the server can judge.
 */
export type WebhookUrlProblem =
  | { kind: "not-absolute" }
  | { kind: "not-http"; protocol: string }
  | { kind: "credentials" };

export function webhookUrlProblem(text: string): WebhookUrlProblem | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { kind: "not-absolute" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { kind: "not-http", protocol: url.protocol.slice(0, -1) };
  if (url.username || url.password) return { kind: "credentials" };
  return undefined;
}

/** The API's words for a problem, after the field's name ("url is not an absolute URL"). */
export function describeWebhookUrlProblem(problem: WebhookUrlProblem): string {
  switch (problem.kind) {
    case "not-absolute":
      return "is not an absolute URL";
    case "not-http":
      return `must be http or https, not ${problem.protocol}`;
    case "credentials":
      return "must not carry a user name or password";
  }
}
