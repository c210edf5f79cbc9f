import { buildPageUrl } from "../builds/forge/statuses";
import { HttpProblem, problemResponse } from "../http/problem";
import type { Verdict } from "./resolve";

/**
 * The gateway's own answers, for a name that it does not proxy: a small page for a browser, an RFC 9457 problem
 * for anything else. 404: no such name; 410: its build ended, with a link to the build's page on the dashboard;
 * 503 with Retry-After: its build is being built or asleep; 400: a Host no preview can have. Never another
 * preview's content, and never anything of the request echoed but the name, escaped.
 */
export type PageVerdict =
  | Exclude<Verdict, { status: 200 }>
  | { status: 403; detail: string }
  | { status: 502; detail: string; buildId: string }
  | { status: 429; detail: string; buildId: string; retryAfterSeconds: number }
  | { status: 503; detail: string; buildId: string; retryAfterSeconds: number; waking: true };

const TITLES: Record<PageVerdict["status"], string> = {
  400: "Bad Request",
  401: "Sign in to open this preview",
  403: "Not admitted",
  404: "No preview here",
  410: "This preview is gone",
  429: "Too many wakes",
  502: "This preview does not answer",
  503: "This preview is not up",
};

const titleOf = (verdict: PageVerdict) => ("waking" in verdict ? "Waking this preview up" : TITLES[verdict.status]);

export function gatewayPage(verdict: PageVerdict, html: boolean, extraHeaders: Record<string, string> = {}): Response {
  const buildId = "buildId" in verdict ? verdict.buildId : null;
  const link = buildId ? buildPageUrl(buildId) : null;
  const headers: Record<string, string> = { "Cache-Control": "no-store", ...extraHeaders };
  if ("retryAfterSeconds" in verdict) headers["Retry-After"] = String(verdict.retryAfterSeconds);
  if (!html) {
    const title = titleOf(verdict);
    const detail = link ? `${verdict.detail} Its page: ${link}` : verdict.detail;
    return problemResponse(new HttpProblem(verdict.status, title, detail, { headers }));
  }
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">${verdict.status === 503 ? `\n<meta http-equiv="refresh" content="${verdict.retryAfterSeconds}">` : ""}
<title>${verdict.status} ${escapeHtml(titleOf(verdict))}</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { margin: 0; display: grid; min-height: 100vh; place-items: center; background: #f8fafc; color: #0f172a; }
  main { max-width: 36rem; padding: 2rem 1.5rem; }
  p.code { font-family: ui-monospace, monospace; font-weight: 600; color: #4338ca; margin: 0; }
  a { color: #4338ca; }
  @media (prefers-color-scheme: dark) { body { background: #020617; color: #e2e8f0; } p.code, a { color: #a5b4fc; } }
</style></head>
<body><main>
<p class="code">${verdict.status}</p>
<h1>${escapeHtml(titleOf(verdict))}</h1>
<p>${escapeHtml(verdict.detail)}</p>
${link ? `<p><a href="${escapeHtml(link)}">Build ${escapeHtml(buildId!)} on the dashboard</a></p>` : ""}
</main></body></html>
`;
  return new Response(body, {
    status: verdict.status,
    headers: { ...headers, "Content-Type": "text/html; charset=utf-8" },
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
