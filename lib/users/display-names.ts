/**
 * Display names are what public reads show instead of emails (a build's created_by), so one must never pass
 * for another: names are compared by a key that ignores case, spacing, punctuation, accents, compatibility
 * forms (fullwidth letters, ligatures) and the commonest lookalike letters of other scripts, and a name whose
 * key is another user's, or one of the service's own names, is refused. Unique keys are what tells two users
 * apart wherever a name is shown.
 */

/** Cyrillic and Greek letters that look like Latin ones, and digits that pass for letters (UTS #39 skeletons). */
const LOOKALIKES: Record<string, string> = {
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  і: "i",
  ј: "j",
  ѕ: "s",
  ԁ: "d",
  ɡ: "g",
  һ: "h",
  ӏ: "l",
  ԛ: "q",
  ԝ: "w",
  α: "a",
  β: "b",
  ε: "e",
  η: "n",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  ς: "c",
  "0": "o",
  "1": "l",
};

/** The comparison key of a display name: "Build  Sérvice", "ＢＵＩＬＤ-SERVICE" and "bυild service" share one. */
export function displayNameKey(name: string): string {
  return (
    [...name.normalize("NFKC").toLowerCase().normalize("NFKD")]
      .filter((char) => !/\p{M}/u.test(char))
      .map((char) => LOOKALIKES[char] ?? char)
      .filter((char) => /[\p{L}\p{N}]/u.test(char))
      .join("")
      // A dotless i and a Latin small capital, after the lookalikes: the keys of "İ" and "ı" are "i".
      .replaceAll("ı", "i")
  );
}

/**
 * Names the service itself shows, or that read as it speaking: `build service` is the creator of automatic
 * builds (lib/builds/auto/service.ts).
 */
export const RESERVED_DISPLAY_NAMES = [
  "build service",
  "service",
  "admin",
  "administrator",
  "root",
  "system",
  "runbot",
  "bcv",
  "webhook",
  "poll",
  "anonymous",
];
const RESERVED_KEYS = new Set(RESERVED_DISPLAY_NAMES.map(displayNameKey));

export function isReservedDisplayName(name: string): boolean {
  return RESERVED_KEYS.has(displayNameKey(name));
}

/** The email's local part ("ana" for ana@example.com): the display name when none is given. */
export function defaultDisplayName(email: string): string {
  const at = email.lastIndexOf("@");
  return (at > 0 ? email.slice(0, at) : email).slice(0, 64);
}

/** A display name was asked for that another user's name already reads as. */
export class DisplayNameTakenError extends Error {
  constructor(readonly displayName: string) {
    super(
      `The display name "${displayName}" is another user's (names are compared ignoring case, spacing, accents and lookalike letters); choose another.`,
    );
  }
}

/**
 * The new user's display name among `shownNames` (every other user's): the one asked for, unless another
 * user's reads the same (DisplayNameTakenError); without one, the email's local part, numbered ("ana-2") when
 * that is taken or reserved.
 */
export function chooseDisplayName(asked: string | undefined, email: string, shownNames: string[]): string {
  const taken = new Set([...shownNames.map(displayNameKey), ...RESERVED_KEYS]);
  if (asked !== undefined) {
    if (taken.has(displayNameKey(asked))) throw new DisplayNameTakenError(asked);
    return asked;
  }
  const base = defaultDisplayName(email).slice(0, 56);
  for (let number = 1; ; number++) {
    const candidate = number === 1 ? base : `${base}-${number}`;
    if (displayNameKey(candidate) !== "" && !taken.has(displayNameKey(candidate))) return candidate;
  }
}
