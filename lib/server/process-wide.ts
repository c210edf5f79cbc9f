/**
 * State shared by the whole process, made on first use. Next bundles instrumentation.ts (the background jobs)
 * apart from each route handler, and its dev server reloads modules: a module's own variable would exist once
 * per bundle, and each bundle would see its own executor, cache or pool. The value is kept on globalThis under
 * `key` instead, so every bundle finds the same one; each caller names its own key.
 */
export function processWide<T>(key: string, create: () => T): T {
  const shared = globalThis as unknown as Record<symbol, unknown>;
  const slot = Symbol.for(`process-wide:${key}`);
  if (!(slot in shared)) shared[slot] = create();
  return shared[slot] as T;
}
