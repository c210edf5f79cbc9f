/**
 * Rules for the names a request may carry. Refs and module names reach git and the stages, so they are
 * checked here before anything runs; git only ever receives them as separate arguments.
 */
export const REPOSITORY_ALIAS_PATTERN = /^[a-z][a-z0-9_-]{0,62}$/;
export const MODULE_NAME_PATTERN = /^[a-z][a-z0-9_]{0,127}$/;
export const MAX_REF_LENGTH = 200;

/**
 * Why a ref is not a safe branch name, or null when it is: the rules of `git check-ref-format --branch`,
 * plus no leading `-` (it would read as an option) and at most 200 characters.
 */
export function refProblem(ref: string): string | null {
  if (ref.length === 0) return "must not be empty";
  if (ref.length > MAX_REF_LENGTH) return `must be at most ${MAX_REF_LENGTH} characters`;
  if (ref.startsWith("-")) return "must not start with '-'";
  if (ref === "@" || ref === "HEAD") return `must not be '${ref}'`;
  // Control characters, space and the characters git reserves for revision syntax and globs.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this test refuses.
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(ref))
    return "must not contain spaces, control characters or any of ~ ^ : ? * [ \\";
  if (ref.includes("..")) return "must not contain '..'";
  if (ref.includes("@{")) return "must not contain '@{'";
  if (ref.startsWith("/") || ref.endsWith("/") || ref.includes("//")) {
    return "must not start or end with '/' or contain '//'";
  }
  if (ref.endsWith(".")) return "must not end with '.'";
  for (const component of ref.split("/")) {
    if (component.startsWith(".")) return "no path component may start with '.'";
    if (component.endsWith(".lock")) return "no path component may end with '.lock'";
  }
  return null;
}

/** A Compose service name as the configuration may give it (Compose allows a little more; this is enough). */
export const COMPOSE_SERVICE_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,62}$/;
