import { useTranslations } from "next-intl";
import { useCallback } from "react";

/**
 * The failure of POST /rates/ in words for a person: what went wrong, whether anything was stored, what to
 * do. The API's detail stays available as the technical reason; the number of attempts it reports
 * ("(3 attempts)") is carried over.
 */
export interface FetchFailure {
  text: string;
  attempts?: number;
}

/** The message (in the fetchFailure messages) for a failure, with its values; `detail` when none fits. */
export type FetchFailureKind =
  | { key: "unreachableServer" | "sessionEnded" | "forbidden" | "tooMany"; attempts?: undefined }
  | { key: "timeout" | "certificate" | "unreachableBank" | "unreadable" | "serverError"; attempts?: number }
  | { key: "bankError"; status: string; attempts?: number }
  | { key: "detail"; detail: string; attempts?: undefined };

export function classifyFetchFailure(status: number, detail: string): FetchFailureKind {
  const counted = /\((\d+) attempts?\)/.exec(detail);
  const attempts = counted ? Number(counted[1]) : undefined;
  if (status === 0) return { key: "unreachableServer" };
  if (status === 401) return { key: "sessionEnded" };
  if (status === 403) return { key: "forbidden" };
  if (status === 429) return { key: "tooMany" };
  if (status === 504 || /did not answer within|timed? ?out/i.test(detail)) return { key: "timeout", attempts };
  if (/certificate/i.test(detail)) return { key: "certificate", attempts };
  if (/could not reach/i.test(detail)) return { key: "unreachableBank", attempts };
  const answered = /answered HTTP (\d{3})/.exec(detail);
  if (answered) return { key: "bankError", status: answered[1], attempts };
  if (status === 502) return { key: "unreadable", attempts };
  if (status >= 500) return { key: "serverError", attempts };
  return { key: "detail", detail };
}

type Translate = (key: string, values?: Record<string, string | number>) => string;

/** A classified failure in the words of `t` (the fetchFailure messages of the page's language). */
export function wordFetchFailure(kind: FetchFailureKind, t: Translate): FetchFailure {
  if (kind.key === "detail") return { text: kind.detail };
  const tries = kind.attempts && kind.attempts > 1 ? t("afterAttempts", { count: kind.attempts }) : "";
  const values = { tries, nothing: t("nothingStored"), ...("status" in kind ? { status: kind.status } : {}) };
  return { text: t(kind.key, values), attempts: kind.attempts };
}

/** describeFetchFailure(status, detail) in the page's language. */
export function useDescribeFetchFailure(): (status: number, detail: string) => FetchFailure {
  const t = useTranslations("fetchFailure");
  return useCallback(
    (status: number, detail: string) =>
      wordFetchFailure(classifyFetchFailure(status, detail), t as unknown as Translate),
    [t],
  );
}
