"use client";

import { signOut, useSession } from "next-auth/react";
import { useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { AuthDialog, type AuthMode } from "./auth-dialog";

/**
 * Where a private preview sends a visitor to sign in (lib/gateway/admission.ts): `/?sign-in=/gateway/ticket?...`.
 * Only that route is a place to go back to, so the parameter cannot send anyone elsewhere.
 */
function pendingReturn(): string | null {
  const target = new URLSearchParams(window.location.search).get("sign-in");
  return target?.startsWith("/gateway/ticket?") ? target : null;
}

/** The header's session controls: who is signed in and Sign out, or Sign in and Register. */
export function AuthControls() {
  const { data: session, status } = useSession();
  const t = useTranslations("auth");
  const [mode, setMode] = useState<AuthMode | null>(null);
  const [previewName, setPreviewName] = useState<string | null>(null);

  // Sent here to sign in for a private preview: the dialog opens by itself, and once signed in the browser goes
  // back through the ticket route to the preview.
  useEffect(() => {
    const target = pendingReturn();
    if (!target) return;
    setPreviewName(new URLSearchParams(target.slice(target.indexOf("?"))).get("name"));
    if (status === "authenticated") window.location.assign(target);
    else if (status === "unauthenticated") setMode((current) => current ?? "sign-in");
  }, [status]);

  // Signing in replaces the controls (and the dialog, if the session arrives before it closes), so the
  // focused element disappears and focus falls to the document's start. It goes to the page's content
  // instead. An effect after the commit is the one place where both orders of "dialog closes" and "session
  // arrives" have settled.
  const previousStatus = useRef(status);
  useEffect(() => {
    const signedInNow = previousStatus.current === "unauthenticated" && status === "authenticated";
    previousStatus.current = status;
    const focusLost = document.activeElement === null || document.activeElement === document.body;
    if (signedInNow && focusLost) document.getElementById("main-content")?.focus({ preventScroll: true });
  }, [status]);

  if (status === "loading") {
    // Same footprint as the buttons, so the header does not jump when the session arrives.
    return <div aria-hidden className="h-8 w-40" />;
  }

  // Signing in and out happen in scripts (the dialog, next-auth's client): without them the buttons would do
  // nothing, so the header says so in their place.
  const withoutScripts = (
    <span className="hidden text-sm text-slate-600 noscript:inline dark:text-slate-400">{t("needsScript")}</span>
  );

  if (session?.user) {
    return (
      <div className="flex items-center gap-3">
        <span
          // On a phone too, cut to what fits beside the button (the whole address in its title); below 360 px the
          // header has no room left for it.
          className="hidden max-w-24 truncate text-sm text-slate-700 min-[360px]:inline-block sm:max-w-56 dark:text-slate-300"
          title={session.user.email ?? undefined}
        >
          {session.user.email}
        </span>
        <Button size="sm" className="noscript:hidden" onClick={() => void signOut({ redirect: false })}>
          {t("signOut")}
        </Button>
      </div>
    );
  }

  return (
    <div className="flex items-center gap-2">
      <Button size="sm" variant="ghost" className="noscript:hidden" onClick={() => setMode("register")}>
        {t("register")}
      </Button>
      <Button size="sm" variant="primary" className="noscript:hidden" onClick={() => setMode("sign-in")}>
        {t("signIn")}
      </Button>
      {withoutScripts}
      <AuthDialog mode={mode} onModeChange={setMode} previewName={previewName} />
    </div>
  );
}
