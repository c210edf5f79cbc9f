/**
 * The failure of POST /rates/ in words for a person: what went wrong, whether anything was stored, what to
 * do. The API's detail stays available as the technical reason; the number of attempts it reports
 * ("(3 attempts)") is carried over.
 */
export interface FetchFailure {
  text: string;
  attempts?: number;
}

export function describeFetchFailure(status: number, detail: string): FetchFailure {
  const counted = /\((\d+) attempts?\)/.exec(detail);
  const attempts = counted ? Number(counted[1]) : undefined;
  const tries = attempts && attempts > 1 ? ` after ${attempts} attempts` : "";
  const nothing = "Nothing was stored.";

  if (status === 0) return { text: "The dashboard could not reach its server. Check your connection and try again." };
  if (status === 401) return { text: "Your session has ended. Sign in again to fetch the rate." };
  if (status === 403) return { text: "Your account is not allowed to fetch rates." };
  if (status === 429) return { text: "Too many fetches in a short time. Wait a minute, then try again." };
  if (status === 504 || /did not answer within|timed? ?out/i.test(detail)) {
    return {
      text: `The central bank’s website did not answer in time${tries}. ${nothing} Its site is often slow: try again in a few minutes.`,
      attempts,
    };
  }
  if (/certificate/i.test(detail)) {
    return {
      text: `The central bank’s website could not be trusted: its certificate could not be verified. ${nothing} The operator has to add the missing certificate (see the README).`,
      attempts,
    };
  }
  if (/could not reach/i.test(detail)) {
    return { text: `The central bank’s website could not be reached${tries}. ${nothing} Try again later.`, attempts };
  }
  const answered = /answered HTTP (\d{3})/.exec(detail);
  if (answered) {
    return {
      text: `The central bank’s website answered with an error (HTTP ${answered[1]})${tries}. ${nothing} Try again later.`,
      attempts,
    };
  }
  if (status === 502) {
    return {
      text: `The central bank’s page did not show a rate that could be read: the site may have changed. ${nothing}`,
      attempts,
    };
  }
  if (status >= 500) return { text: `The server could not fetch the rate. ${nothing} Try again later.`, attempts };
  return { text: detail, attempts };
}
