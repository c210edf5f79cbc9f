"use client";

import { useSession } from "next-auth/react";
import { useTranslations } from "next-intl";
import { useState, useSyncExternalStore } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field, inputClass } from "@/components/ui/field";
import { Panel } from "@/components/ui/panel";
import { ApiError, request } from "@/lib/swr/fetcher";

interface Token {
  access_token: string;
  token_type: "bearer";
  expires_in: number;
}

const noSubscription = () => () => {};

/**
 * A bearer token for the API, asked of POST /users/token with the signed-in person's password (the same
 * password form a script would send), shown once with its copy button and a request that uses it. Signing out
 * everywhere (DELETE /users/token) revokes it.
 */
export function ApiToken() {
  const t = useTranslations("developers.token");
  const { data: session, status } = useSession();
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [token, setToken] = useState<Token | null>(null);
  const [error, setError] = useState<string | null>(null);
  const origin = useSyncExternalStore(
    noSubscription,
    () => window.location.origin,
    () => "",
  );
  const email = session?.user?.email ?? "";

  async function ask(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = new URLSearchParams({ username: email, password });
      setToken(await request<Token>("/users/token", { method: "POST", body }));
      setPassword("");
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  }

  const example = `curl -H "Authorization: Bearer ${token?.access_token ?? "$TOKEN"}" ${origin}/users/me`;
  return (
    <Panel title={t("title")} id="api-token">
      <div className="flex flex-col gap-4 text-sm">
        <p className="text-slate-600 dark:text-slate-400">{t("intro")}</p>
        {status === "authenticated" ? (
          <form onSubmit={(event) => void ask(event)} className="flex flex-wrap items-end gap-3">
            <Field label={t("password", { email })} className="min-w-0 flex-1 basis-56" error={error ?? undefined}>
              {(control) => (
                <input
                  {...control}
                  type="password"
                  autoComplete="current-password"
                  required
                  value={password}
                  onChange={(event) => setPassword(event.target.value)}
                  className={inputClass}
                />
              )}
            </Field>
            <Button type="submit" variant="primary" busy={busy} disabled={!password}>
              {t("create")}
            </Button>
          </form>
        ) : (
          <p className="rounded-md bg-slate-50 px-3 py-2 text-slate-700 dark:bg-slate-800/50 dark:text-slate-200">
            {status === "loading" ? t("checking") : t("signIn")}
          </p>
        )}
        {token && (
          <Alert tone="success">
            <p>{t("created", { hours: Math.round(token.expires_in / 3600) })}</p>
            <div className="mt-2 flex flex-wrap items-center gap-2">
              <code className="min-w-0 flex-1 break-all font-mono text-xs" data-testid="api-token">
                {token.access_token}
              </code>
              <CopyButton text={token.access_token} />
            </div>
          </Alert>
        )}
        <div className="flex flex-col gap-2">
          <p className="font-medium">{t("example")}</p>
          <div className="flex items-start gap-2">
            <pre className="min-w-0 flex-1 rounded-md bg-slate-100 p-3 font-mono text-xs break-all whitespace-pre-wrap dark:bg-slate-800">
              {example}
            </pre>
            <CopyButton text={example} />
          </div>
          <p className="text-slate-600 dark:text-slate-400">{t("revoke")}</p>
        </div>
      </div>
    </Panel>
  );
}
