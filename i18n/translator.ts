import { createTranslator } from "next-intl";
import en from "@/messages/en.json";
import es from "@/messages/es.json";
import type { Locale } from "./locale";

const MESSAGES = { es, en } as const;

/** The messages of one namespace outside React: what a route handler writes itself (an SVG, a small page). */
export function translatorFor<N extends keyof typeof en>(locale: Locale, namespace: N) {
  return createTranslator({ locale, messages: MESSAGES[locale] as typeof en, namespace });
}
