import { translatorFor } from "../../i18n/translator";
import type en from "../../messages/en.json";

/** A sentence of the gateway's pages, by its key in messages/<locale>.json's `gateway` namespace. */
export type GatewayMessageKey = Exclude<keyof (typeof en)["gateway"], "titles" | "buildLink">;
export interface GatewayMessage {
  key: GatewayMessageKey;
  values: Record<string, string>;
}

type Translate = (key: string, values?: Record<string, string>) => string;

/** The gateway's sentences in a language (its pages are in the visitor's; its problems, for programs, in English). */
export const gatewayTranslator = (locale: "es" | "en") => translatorFor(locale, "gateway") as unknown as Translate;

/** A verdict's sentence: the English `detail` its problem carries, and the message its page says it with. */
export function say(key: GatewayMessageKey, values: Record<string, string> = {}) {
  return { detail: gatewayTranslator("en")(key, values), message: { key, values } satisfies GatewayMessage };
}
