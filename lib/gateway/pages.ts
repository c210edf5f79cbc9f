import { RequestCookies } from "next/dist/compiled/@edge-runtime/cookies";
import { LOCALE_COOKIE, type Locale, pickLocale } from "../../i18n/locale";
import { buildPageUrl } from "../builds/forge/statuses";
import { prefersHtml } from "../http/negotiate";
import { HttpProblem, problemResponse } from "../http/problem";
import type { LiveNames } from "./live-names";
import { type GatewayMessage, gatewayTranslator } from "./messages";
import type { Verdict } from "./resolve";

/**
 * The gateway's own answers, for a name that it does not proxy: a small page for a browser, an RFC 9457 problem
 * for anything else. 404: no such name, with the live names near it that the visitor may see (./live-names.ts) and,
 * unless signed in, the way to sign in to see the private ones too; 410: its build ended, with a link to the build's page on the dashboard;
 * 503 with Retry-After: its build is being built or asleep; 400: a Host no preview can have. Never another
 * preview's content, and never anything of the request echoed but the name, escaped. The page speaks the
 * visitor's language (the dashboard's `lang` cookie when the preview's host receives it, else the browser's first
 * language); the problem, for programs, stays in English.
 */
export type PageVerdict =
  | Exclude<Verdict, { status: 200 }>
  | {
      status: 404;
      detail: string;
      message: GatewayMessage;
      liveNames: LiveNames;
      /** Where a visitor who is not signed in signs in and comes back to this page; null: nowhere to. */
      signInUrl: string | null;
    }
  | { status: 403; detail: string; message: GatewayMessage }
  | { status: 502; detail: string; message: GatewayMessage; buildId: string }
  | { status: 429; detail: string; message: GatewayMessage; buildId: string; retryAfterSeconds: number }
  | { status: 429; detail: string; message: GatewayMessage; retryAfterSeconds: number }
  | { status: 503; detail: string; message: GatewayMessage; buildId: string; retryAfterSeconds: number; waking: true };

const TITLES = {
  400: "badRequest",
  401: "signIn",
  403: "notAdmitted",
  404: "notFound",
  410: "gone",
  429: "tooManyWakes",
  502: "notAnswering",
  503: "notUp",
} as const satisfies Record<PageVerdict["status"], string>;

const titleOf = (verdict: PageVerdict, locale: Locale) =>
  gatewayTranslator(locale)(
    `titles.${"waking" in verdict ? "waking" : verdict.message.key === "tooManyGuesses" ? "tooManyGuesses" : TITLES[verdict.status]}`,
  );

/**
 * The language of the page for this request, or null when it asks for a problem rather than a page: the `lang`
 * cookie the dashboard's language switch sets (seldom here: the previews' domain is usually not the dashboard's),
 * else Spanish when the browser's first language is, else English.
 */
export function pageLocale(request: Request): Locale | null {
  if (!prefersHtml(request)) return null;
  return pickLocale(
    new RequestCookies(request.headers).get(LOCALE_COOKIE)?.value,
    request.headers.get("accept-language"),
  );
}

export function gatewayPage(
  verdict: PageVerdict,
  locale: Locale | null,
  extraHeaders: Record<string, string> = {},
): Response {
  const buildId = "buildId" in verdict ? verdict.buildId : null;
  const link = buildId ? buildPageUrl(buildId) : null;
  const headers: Record<string, string> = { "Cache-Control": "no-store", ...extraHeaders };
  if ("retryAfterSeconds" in verdict) headers["Retry-After"] = String(verdict.retryAfterSeconds);
  if (!locale) {
    const title = titleOf(verdict, "en");
    let detail = link ? `${verdict.detail} Its page: ${link}` : verdict.detail;
    if ("liveNames" in verdict && verdict.liveNames.names.length > 0)
      detail += ` Live previews, nearest first: ${verdict.liveNames.names.map((name) => name.url).join(", ")}`;
    return problemResponse(new HttpProblem(verdict.status, title, detail, { headers }));
  }
  const t = gatewayTranslator(locale);
  const title = titleOf(verdict, locale);
  const body = `<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">${verdict.status === 503 ? `\n<meta http-equiv="refresh" content="${verdict.retryAfterSeconds}">` : ""}
<title>${verdict.status} ${escapeHtml(title)}</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { margin: 0; display: grid; min-height: 100vh; place-items: center; background: #f8fafc; color: #0f172a; }
  main { max-width: 36rem; padding: 2rem 1.5rem; }
  p.code { font-family: ui-monospace, monospace; font-weight: 600; color: #4338ca; margin: 0; }
  a { color: #4338ca; }
  ul.names { padding-left: 1.25rem; font-family: ui-monospace, monospace; }
  @media (prefers-color-scheme: dark) { body { background: #020617; color: #e2e8f0; } p.code, a { color: #a5b4fc; } }
</style></head>
<body><main>
<p class="code">${verdict.status}</p>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(t(verdict.message.key, verdict.message.values))}</p>
${link ? `<p><a href="${escapeHtml(link)}">${escapeHtml(t("buildLink", { id: buildId! }))}</a></p>` : ""}
${"liveNames" in verdict ? liveNamesHtml(verdict, t) : ""}</main></body></html>
`;
  return new Response(body, {
    status: verdict.status,
    headers: { ...headers, "Content-Type": "text/html; charset=utf-8" },
  });
}

/** The live names near the one asked for, as links, and the way to sign in to see the private ones. */
function liveNamesHtml(
  verdict: Extract<PageVerdict, { liveNames: LiveNames }>,
  t: ReturnType<typeof gatewayTranslator>,
): string {
  const { names, signedIn } = verdict.liveNames;
  const list = names.length
    ? `<p>${escapeHtml(t("livePreviews", { signedIn: signedIn ? "yes" : "no" }))}</p>
<ul class="names">${names.map((name) => `<li><a href="${escapeHtml(name.url)}">${escapeHtml(name.name)}</a></li>`).join("")}</ul>`
    : `<p>${escapeHtml(t("noLivePreviews", { signedIn: signedIn ? "yes" : "no" }))}</p>`;
  const signIn =
    !signedIn && verdict.signInUrl
      ? `\n<p>${escapeHtml(t("privateWhenSignedIn"))} <a href="${escapeHtml(verdict.signInUrl)}">${escapeHtml(t("signInLink"))}</a></p>`
      : "";
  return `${list}${signIn}\n`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
