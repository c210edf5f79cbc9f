/**
 * Whether a request asks for a page rather than data: a browser's navigation lists text/html first, while
 * the dashboard's fetches and API clients ask for application/json or anything (`*\/*`, curl's default).
 * HTML wins only when text/html is accepted with a higher quality than application/json (which a bare
 * `*\/*` grants at its own quality).
 */
export function prefersHtml(request: Request): boolean {
  const accept = request.headers.get("accept");
  if (!accept) return false;
  const quality = new Map<string, number>();
  for (const part of accept.split(",")) {
    const [type, ...parameters] = part.trim().toLowerCase().split(";");
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const value = q ? Number(q.slice(2)) : 1;
    quality.set(type.trim(), Number.isFinite(value) ? value : 0);
  }
  const html = quality.get("text/html") ?? 0;
  const json = quality.get("application/json") ?? quality.get("application/*") ?? quality.get("*/*") ?? 0;
  return html > 0 && html > json;
}
