import type messages from "@/messages/en.json";
import type { Locale } from "./locale";

// Keys are checked against the English messages at compile time; tests/unit/messages.test.ts holds the
// Spanish file to the same keys.
declare module "next-intl" {
  interface AppConfig {
    Locale: Locale;
    Messages: typeof messages;
  }
}
