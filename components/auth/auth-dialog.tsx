"use client";

import { signIn } from "next-auth/react";
import { useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, inputClass } from "@/components/ui/field";
import { Modal } from "@/components/ui/modal";
import { ApiError, sendJson } from "@/lib/swr/fetcher";

export type AuthMode = "sign-in" | "register";

interface AuthDialogProps {
  mode: AuthMode | null;
  onModeChange: (mode: AuthMode | null) => void;
  /** Why the dialog opened by itself (a private preview's name), said above the form. */
  previewName?: string | null;
}

/**
 * Sign in or register (then sign in) with email and password. Registration goes through POST /users/, so its
 * field problems (invalid email, short password, duplicate) show next to the fields they name.
 */
export function AuthDialog({ mode, onModeChange, previewName }: AuthDialogProps) {
  const t = useTranslations("auth");
  return (
    <Modal
      open={mode !== null}
      onClose={() => onModeChange(null)}
      title={mode === "register" ? t("createAccountTitle") : t("signIn")}
    >
      {mode && previewName && (
        <p className="mb-4 text-sm text-slate-700 dark:text-slate-300" data-testid="private-preview-notice">
          {t("privatePreview", { name: previewName })}
        </p>
      )}
      {mode && <AuthForm key={mode} mode={mode} onModeChange={onModeChange} />}
    </Modal>
  );
}

function AuthForm({ mode, onModeChange }: { mode: AuthMode; onModeChange: AuthDialogProps["onModeChange"] }) {
  const t = useTranslations("auth");
  const tPanel = useTranslations("panel");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [fieldErrors, setFieldErrors] = useState<{ email?: string; password?: string }>({});
  const emailInput = useRef<HTMLInputElement>(null);
  // Switching between Sign in and Register remounts the form inside the open dialog: the email field takes
  // the focus again (on opening, the Modal focuses it through data-autofocus).
  useEffect(() => emailInput.current?.focus(), []);

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setFieldErrors({});
    try {
      if (mode === "register") {
        try {
          await sendJson("/users/", "POST", { email, password });
        } catch (problem) {
          if (!(problem instanceof ApiError)) throw problem;
          const fields = { email: problem.fieldError("body.email"), password: problem.fieldError("body.password") };
          if (problem.status === 409) fields.email = problem.problem.detail;
          setFieldErrors(fields);
          if (!fields.email && !fields.password) setError(problem.message);
          return;
        }
      }
      const result = await signIn("credentials", { email, password, redirect: false });
      if (!result || result.error) {
        // next-auth answers "CredentialsSignin" when authorize() returned null (wrong email or password).
        setError(!result?.error || result.error === "CredentialsSignin" ? t("wrongCredentials") : result.error);
        return;
      }
      // Where focus goes next is AuthControls' business: the session's arrival unmounts this dialog.
      onModeChange(null);
    } catch {
      setError(tPanel("networkError"));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
      <Field label={t("email")} error={fieldErrors.email}>
        {(control) => (
          <input
            {...control}
            className={inputClass}
            type="email"
            name="email"
            autoComplete="email"
            required
            ref={emailInput}
            data-autofocus
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        )}
      </Field>
      <Field
        label={t("password")}
        error={fieldErrors.password}
        // The rule once: the hint before, or the API's error in its place, never both saying it.
        hint={mode === "register" && !fieldErrors.password ? t("passwordHint") : undefined}
      >
        {(control) => (
          <input
            {...control}
            className={inputClass}
            type="password"
            name="password"
            autoComplete={mode === "register" ? "new-password" : "current-password"}
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        )}
      </Field>
      {error && <Alert tone="error">{error}</Alert>}
      <Button type="submit" variant="primary" busy={busy}>
        {mode === "register" ? t("createAccount") : t("signIn")}
      </Button>
      <p className="text-center text-sm text-slate-600 dark:text-slate-300">
        {mode === "register" ? t("haveAccount") : t("noAccount")}{" "}
        <button
          type="button"
          className="font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
          onClick={() => onModeChange(mode === "register" ? "sign-in" : "register")}
        >
          {mode === "register" ? t("signIn") : t("register")}
        </button>
      </p>
    </form>
  );
}
