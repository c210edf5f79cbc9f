/** One operation of the API as a reader finds it: method, path and summary, under its group (tag). */
export interface OperationSummary {
  method: string;
  path: string;
  summary: string;
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/**
 * The operations of an OpenAPI document grouped by their first tag, in the document's tag order (the order
 * /docs shows them in), each group in the order of its paths.
 */
export function listOperationsByTag(document: object): { tag: string; operations: OperationSummary[] }[] {
  const { tags = [], paths = {} } = document as {
    tags?: { name: string }[];
    paths?: Record<string, Partial<Record<string, { tags?: string[]; summary?: string }>>>;
  };
  const groups = new Map<string, OperationSummary[]>(tags.map((tag) => [tag.name, []]));
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? "";
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)!.push({ method: method.toUpperCase(), path, summary: operation.summary ?? "" });
    }
  }
  return [...groups]
    .filter(([, operations]) => operations.length > 0)
    .map(([tag, operations]) => ({ tag, operations }));
}
