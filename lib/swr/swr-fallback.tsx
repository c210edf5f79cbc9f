"use client";

import { SWRConfig } from "swr";

/**
 * Answers the server already read (keyed by API path) for the hooks below to start from, so the server's
 * render shows data and the browser's first render matches it; the rest of the configuration is the parent's.
 */
export function SwrFallback({ fallback, children }: { fallback: Record<string, unknown>; children: React.ReactNode }) {
  return <SWRConfig value={{ fallback }}>{children}</SWRConfig>;
}
