import type { Problem } from "./types";

/**
 * The error every API call throws for a non-2xx answer. It carries the problem body so that panels can show
 * the server's `detail` and forms can put each `errors[]` entry next to its field.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(problem.detail || problem.title);
    this.name = "ApiError";
  }

  /**
   * The message of the first field error whose `field` is `field` or lies below it. Paths are compared in
   * dotted form, since zod's paths read `body.repositories.0.ref` and hand-written ones `body.repositories[0].ref`.
   */
  fieldError(field: string): string | undefined {
    return this.problem.errors?.find((e) => {
      const path = normalizeFieldPath(e.field);
      return path === field || path.startsWith(`${field}.`);
    })?.message;
  }
}

/** `body.modules[2]` → `body.modules.2`. */
export const normalizeFieldPath = (field: string) => field.replace(/\[(\d+)\]/g, ".$1");

async function toApiError(response: Response): Promise<ApiError> {
  let problem: Problem;
  try {
    const body = (await response.json()) as Partial<Problem>;
    problem = {
      ...body,
      title: body.title ?? response.statusText,
      status: body.status ?? response.status,
      detail: body.detail ?? `The server answered ${response.status} ${response.statusText}.`,
    };
  } catch {
    // Not a problem body (a proxy's HTML page, a dropped connection): still give the person a sentence.
    problem = {
      title: response.statusText || "Error",
      status: response.status,
      detail: `The server answered ${response.status} ${response.statusText}.`.replace(/ \.$/, "."),
    };
  }
  return new ApiError(response.status, problem);
}

/**
 * Calls the API with the browser's session cookie (same origin), returns the status and parsed JSON body,
 * and throws an ApiError carrying the problem for any non-2xx answer.
 */
export async function requestWithStatus<T>(url: string, init: RequestInit = {}): Promise<{ status: number; data: T }> {
  let response: Response;
  try {
    response = await fetch(url, {
      credentials: "same-origin",
      // Rate reads carry `max-age`: the browser would answer a revalidation (after a fetch of a new rate)
      // from its cache for a minute. "no-cache" still sends If-None-Match, so unchanged data costs a 304.
      cache: "no-cache",
      ...init,
      headers: { Accept: "application/json", ...init.headers },
    });
  } catch {
    throw new ApiError(0, {
      title: "Network error",
      status: 0,
      detail: "The server could not be reached. Check your connection and try again.",
    });
  }
  if (!response.ok) throw await toApiError(response);
  if (response.status === 204) return { status: 204, data: undefined as T };
  return { status: response.status, data: (await response.json()) as T };
}

/** `requestWithStatus` for callers that only need the body. */
export async function request<T>(url: string, init: RequestInit = {}): Promise<T> {
  return (await requestWithStatus<T>(url, init)).data;
}

/** The one SWR fetcher: the key is the API path. */
export const fetcher = <T>(url: string) => request<T>(url);

/** Sends JSON with a method (POST, DELETE) and answers the status with the body; errors as for reads. */
export function sendJson<T>(url: string, method: string, body?: unknown): Promise<{ status: number; data: T }> {
  return requestWithStatus<T>(url, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
