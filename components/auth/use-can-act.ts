import { useSession } from "next-auth/react";
import { useTranslations } from "next-intl";

/**
 * Whether the person may use actions that need a session (fetch a rate, start, cancel or destroy a build).
 * While the session loads, actions stay disabled rather than flicker from enabled to disabled.
 */
export function useCanAct(): { canAct: boolean; hint: string | undefined } {
  const { status } = useSession();
  const t = useTranslations("session");
  if (status === "authenticated") return { canAct: true, hint: undefined };
  if (status === "loading") return { canAct: false, hint: t("checking") };
  return { canAct: false, hint: t("signInToAct") };
}
