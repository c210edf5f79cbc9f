/**
 * The stamp the runner puts before its own log lines, "2026-11-24 18:30:05 UTC": named, in the time zone the
 * builds panel shows every moment in, whoever reads it and wherever.
 */
export const logStamp = (date = new Date()) => `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
