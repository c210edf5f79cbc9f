/**
 * The dashboard keeps its state in the query string (`?build=` for the drawer, `?range=`/`?from=&to=` for the
 * rate history) so a reload or a shared link shows the same thing. Each part changes its own keys and keeps
 * the others'.
 */
export function hrefWith(
  current: URLSearchParams | { toString(): string },
  changes: Record<string, string | null>,
): string {
  const next = new URLSearchParams(current.toString());
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) next.delete(key);
    else next.set(key, value);
  }
  const query = next.toString();
  return query ? `/?${query}` : "/";
}
