/**
 * The fronts keep their state in the query string (`?build=` for the console's drawer, `?range=`/`?from=&to=`
 * for the rate history) so a reload or a shared link shows the same thing. Each part changes its own keys and
 * keeps the others'. `path` is the front's own address (the page a rewrite serves knows only its folder's).
 */
export function hrefWith(
  current: URLSearchParams | { toString(): string },
  changes: Record<string, string | null>,
  path = "/",
): string {
  const next = new URLSearchParams(current.toString());
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) next.delete(key);
    else next.set(key, value);
  }
  const query = next.toString();
  return query ? `${path}?${query}` : path;
}
