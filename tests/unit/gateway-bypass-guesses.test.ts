import { describe, expect, it } from "vitest";
import { bypassGuessesRetryAfter, GUESSES_A_MINUTE, noteWrongBypass } from "@/lib/gateway/bypass-guesses";

describe("wrong X-Preview-Bypass secrets per client (lib/gateway/bypass-guesses.ts)", () => {
  it("lets a client make 10 wrong guesses a minute, then says when it may try again", () => {
    const client = `198.51.100.${Math.floor(Math.random() * 250)}`;
    const start = 1_000_000;
    for (let guess = 0; guess < GUESSES_A_MINUTE; guess++) {
      expect(bypassGuessesRetryAfter(client, GUESSES_A_MINUTE, start + guess * 1000)).toBeNull();
      noteWrongBypass(client, start + guess * 1000);
    }
    // The 11th is refused until the first guess is a minute old.
    expect(bypassGuessesRetryAfter(client, GUESSES_A_MINUTE, start + 10_000)).toBe(50);
    expect(bypassGuessesRetryAfter(client, GUESSES_A_MINUTE, start + 59_500)).toBe(1);
    expect(bypassGuessesRetryAfter(client, GUESSES_A_MINUTE, start + 60_000)).toBeNull();
    // Another client is not slowed down by this one.
    expect(bypassGuessesRetryAfter("203.0.113.9", GUESSES_A_MINUTE, start + 10_000)).toBeNull();
  });

  it("keeps refusing a client that keeps guessing", () => {
    const client = "2001:db8::77";
    for (let second = 0; second < 120; second++) noteWrongBypass(client, second * 1000);
    expect(bypassGuessesRetryAfter(client, GUESSES_A_MINUTE, 120_000)).not.toBeNull();
  });
});
