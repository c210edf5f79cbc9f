"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, inputClass } from "@/components/ui/field";
import { PanelError, PanelLoading } from "@/components/ui/panel-states";
import { useFormat } from "@/components/ui/use-format";
import { ApiError, normalizeFieldPath, sendJson } from "@/lib/swr/fetcher";
import type { AppConfig, AppConfigRepository, Build } from "@/lib/swr/types";
import { useAppConfig } from "@/lib/swr/use-app-config";
import { useRepositoryBranches } from "@/lib/swr/use-repository-branches";

interface RepositoryRow {
  /** Stable across edits so React keeps each row's inputs. */
  key: number;
  repository: string;
  ref: string;
}

interface NewBuildFormProps {
  onCreated: (buildId: string) => void;
  onCancel: () => void;
}

/** The form, once GET /app-config has answered: everything it offers comes from the service's configuration. */
export function NewBuildForm(props: NewBuildFormProps) {
  const t = useTranslations("builds.form");
  const config = useAppConfig();
  if (config.error) return <PanelError error={config.error} onRetry={() => void config.mutate()} className="h-64" />;
  if (!config.data) return <PanelLoading label={t("loading")} className="h-64" />;
  if (config.data.repositories.length === 0) {
    return <Alert tone="info">{t("noRepository")}</Alert>;
  }
  return <LoadedNewBuildForm config={config.data} {...props} />;
}

const byPriority = (a: AppConfigRepository, b: AppConfigRepository) =>
  a.priority - b.priority || a.alias.localeCompare(b.alias);

function LoadedNewBuildForm({ config, onCreated, onCancel }: NewBuildFormProps & { config: AppConfig }) {
  const t = useTranslations("builds.form");
  const format = useFormat();
  const repositories = [...config.repositories].sort(byPriority);
  const first = repositories.find((r) => r.ready) ?? repositories[0];
  const [rows, setRows] = useState<RepositoryRow[]>([{ key: 0, repository: first.alias, ref: first.default_ref }]);
  const [nextKey, setNextKey] = useState(1);
  const [modules, setModules] = useState<string[]>([]);
  const ttlChoices = [...new Set([...config.ttl.choices, config.ttl.default_seconds])].sort((a, b) => a - b);
  const [ttl, setTtl] = useState(config.ttl.default_seconds);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiError>();
  const formRef = useRef<HTMLFormElement>(null);

  // The first field takes the focus, also when the configuration arrives after the dialog opened.
  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>("[data-autofocus]")?.focus();
  }, []);

  const repoByAlias = new Map(repositories.map((r) => [r.alias, r]));
  const chosen = rows.map((row) => repoByAlias.get(row.repository)).filter((r): r is AppConfigRepository => !!r);
  // Only ready repositories can be added: the others are listed, disabled, so people see they exist.
  const addable = repositories.filter((r) => r.ready && !rows.some((row) => row.repository === r.alias));
  // Modules offered are those of the chosen repositories at their default refs; a module found in two
  // repositories is one module to the build (ADDONS_PATH order decides which copy wins).
  const offered = chosen.map((repo) => ({ repo, modules: repo.modules.filter((m, i, all) => all.indexOf(m) === i) }));
  const offeredNames = new Set(offered.flatMap((group) => group.modules));
  const selected = modules.filter((m) => offeredNames.has(m));
  // "Select all" takes every module offered, up to the bound a build may have; again, it clears them.
  const allSelected = offeredNames.size > 0 && selected.length >= Math.min(offeredNames.size, config.max_modules);
  const toggleAll = () => setModules(allSelected ? [] : [...offeredNames].slice(0, config.max_modules));

  function updateRow(key: number, patch: Partial<RepositoryRow>) {
    setRows((current) =>
      current.map((row) => {
        if (row.key !== key) return row;
        const next = { ...row, ...patch };
        // Choosing another repository starts from its default ref.
        if (patch.repository !== undefined) next.ref = repoByAlias.get(patch.repository)?.default_ref ?? "";
        return next;
      }),
    );
  }

  function addRow() {
    const repo = addable[0];
    if (!repo) return;
    setRows((current) => [...current, { key: nextKey, repository: repo.alias, ref: repo.default_ref }]);
    setNextKey((k) => k + 1);
  }

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    // What the browser can tell at once is said at once, in the same place the API's answer would go.
    const local = checkForm(rows, selected, { enterRef: t("enterRef"), chooseModule: t("chooseModule") });
    if (local.length > 0) {
      setProblem(new ApiError(0, { title: t("checkTitle"), status: 0, detail: t("checkDetail"), errors: local }));
      return;
    }
    setBusy(true);
    setProblem(undefined);
    try {
      const { data } = await sendJson<Build>("/builds", "POST", {
        repositories: rows.map(({ repository, ref }) => ({ repository, ref: ref.trim() })),
        modules: selected,
        ttl_seconds: ttl,
      });
      onCreated(data.build_id);
    } catch (error) {
      setProblem(
        error instanceof ApiError ? error : new ApiError(0, { title: t("error"), status: 0, detail: t("notStarted") }),
      );
    } finally {
      setBusy(false);
    }
  }

  // Field problems go next to their fields; anything not tied to a shown field goes above the buttons.
  const sentences = { chooseModule: t("chooseModule"), noSuchRef: t("noSuchRef") };
  const humanize = (message: string | undefined, field?: "modules") => humanizeFieldMessage(message, sentences, field);
  const rowError = (index: number, field: "repository" | "ref") =>
    humanize(
      problem?.fieldError(`body.repositories.${index}.${field}`) ??
        (rows.length === 1 ? problem?.fieldError(`body.${field}`) : undefined),
    );
  const modulesError = humanize(problem?.fieldError("body.modules"), "modules");
  const ttlError = humanize(problem?.fieldError("body.ttl_seconds"));
  const placed = (field: string) =>
    /^body\.(repositories\.\d+\.(repository|ref)|modules|ttl_seconds)(\.|$)/.test(field) ||
    (rows.length === 1 && /^body\.(repository|ref)$/.test(field));
  const unplaced = problem?.problem.errors?.filter((e) => !placed(normalizeFieldPath(e.field))) ?? [];
  const showDetail = problem && (!problem.problem.errors?.length || unplaced.length > 0);

  return (
    <form ref={formRef} onSubmit={submit} className="flex flex-col gap-5" noValidate aria-label={t("label")}>
      <fieldset className="flex flex-col gap-3">
        <legend className="mb-2 text-sm font-semibold">{t("repositories")}</legend>
        {rows.map((row, index) => {
          const repo = repoByAlias.get(row.repository);
          const refLocked = repo ? !repo.allow_request_ref : false;
          return (
            // Side by side where the two fields and Remove fit; stacked on the narrowest phones (320 px).
            <div
              key={row.key}
              className="grid grid-cols-1 items-start gap-2 min-[440px]:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_auto]"
              data-testid="repository-row"
            >
              <Field label={t("repository", { n: index + 1 })} error={rowError(index, "repository")}>
                {(control) => (
                  <select
                    {...control}
                    data-autofocus={index === 0 || undefined}
                    className={inputClass}
                    value={row.repository}
                    onChange={(e) => updateRow(row.key, { repository: e.target.value })}
                  >
                    {repositories.map((r) => (
                      <option
                        key={r.alias}
                        value={r.alias}
                        disabled={
                          !r.ready || (r.alias !== row.repository && rows.some((o) => o.repository === r.alias))
                        }
                      >
                        {r.alias}
                        {r.ready ? "" : t("notReadyOption")}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field
                label={t("ref", { n: index + 1 })}
                error={rowError(index, "ref")}
                hint={refLocked ? t("refLocked") : repo && !repo.ready ? t("notReady") : undefined}
              >
                {(control) => (
                  <RefInput
                    control={control}
                    alias={repo?.ready && !refLocked ? row.repository : null}
                    listId={`branches-${row.key}`}
                    value={row.ref}
                    readOnly={refLocked}
                    onChange={(ref) => updateRow(row.key, { ref })}
                  />
                )}
              </Field>
              <div className="justify-self-end min-[440px]:pt-6">
                <Button
                  size="md"
                  variant="ghost"
                  aria-label={t("removeLabel", { n: index + 1 })}
                  disabled={rows.length === 1}
                  onClick={() => setRows((current) => current.filter((r) => r.key !== row.key))}
                >
                  {t("remove")}
                </Button>
              </div>
            </div>
          );
        })}
        <div>
          <Button size="sm" onClick={addRow} disabled={addable.length === 0 || rows.length >= config.max_repositories}>
            {t("add")}
          </Button>
        </div>
      </fieldset>

      <fieldset aria-describedby={modulesError ? "modules-error" : undefined}>
        <legend className="mb-2 flex w-full flex-wrap items-center gap-2 text-sm font-semibold">
          <span>
            {t("modules")}{" "}
            <span className="font-normal text-slate-600 dark:text-slate-400">
              {t("modulesCount", { selected: selected.length, max: config.max_modules })}
            </span>
          </span>
          {offeredNames.size > 0 && (
            <Button size="sm" variant="ghost" onClick={toggleAll}>
              {allSelected ? t("selectNone") : t("selectAll")}
            </Button>
          )}
        </legend>
        <div className="flex max-h-56 flex-col gap-3 overflow-y-auto rounded-md border border-slate-200 p-3 dark:border-slate-700">
          {offered.map(({ repo, modules: names }) => (
            <div key={repo.alias}>
              <p className="mb-1 text-xs font-medium tracking-wide text-slate-600 uppercase dark:text-slate-400">
                {repo.alias} @ {repo.default_ref}
              </p>
              {names.length === 0 ? (
                <p className="text-sm text-slate-600 dark:text-slate-400">
                  {t("noModules", { ref: repo.default_ref })}
                </p>
              ) : (
                <div className="flex flex-wrap gap-x-4 gap-y-1">
                  {names.map((name) => (
                    <label key={name} className="flex items-center gap-2 text-sm">
                      <input
                        type="checkbox"
                        className="size-4 accent-indigo-600"
                        checked={selected.includes(name)}
                        onChange={(e) =>
                          setModules((current) =>
                            e.target.checked ? [...current, name] : current.filter((m) => m !== name),
                          )
                        }
                      />
                      <span className="font-mono">{name}</span>
                    </label>
                  ))}
                </div>
              )}
            </div>
          ))}
        </div>
        {modulesError && (
          <p id="modules-error" className="mt-1 text-sm text-red-700 dark:text-red-300">
            {modulesError}
          </p>
        )}
      </fieldset>

      <Field label={t("ttl")} error={ttlError} hint={t("ttlHint")}>
        {(control) => (
          <select {...control} className={inputClass} value={ttl} onChange={(e) => setTtl(Number(e.target.value))}>
            {ttlChoices.map((seconds) => (
              <option key={seconds} value={seconds}>
                {format.ttl(seconds)}
                {seconds === config.ttl.default_seconds ? t("default") : ""}
              </option>
            ))}
          </select>
        )}
      </Field>

      {showDetail && (
        <Alert tone="error">
          <p>{problem.message}</p>
          {unplaced.length > 0 && (
            <ul className="mt-1 list-disc pl-5">
              {unplaced.map((e) => (
                <li key={`${e.field}:${e.message}`}>
                  <code>{e.field}</code>: {e.message}
                </li>
              ))}
            </ul>
          )}
        </Alert>
      )}

      <div className="flex justify-end gap-2">
        <Button onClick={onCancel}>{t("cancel")}</Button>
        <Button type="submit" variant="primary" busy={busy}>
          {t("start")}
        </Button>
      </div>
    </form>
  );
}

/**
 * A ref typed freely, with the repository's branches (its mirror's, GET /builds/repositories/{alias}/branches)
 * offered as it is typed: the browser's own list under the field, which filters by what is typed and leaves any
 * tag or commit id free to enter. `alias` null: nothing offered (the ref is locked or the repository not ready).
 */
function RefInput({
  control,
  alias,
  listId,
  value,
  readOnly,
  onChange,
}: {
  control: React.InputHTMLAttributes<HTMLInputElement>;
  alias: string | null;
  listId: string;
  value: string;
  readOnly: boolean;
  onChange: (ref: string) => void;
}) {
  const { data } = useRepositoryBranches(alias);
  const branches = alias ? (data?.branches ?? []) : [];
  return (
    <>
      <input
        {...control}
        className={`${inputClass} font-mono`}
        value={value}
        readOnly={readOnly}
        aria-readonly={readOnly || undefined}
        spellCheck={false}
        autoCapitalize="off"
        autoComplete="off"
        list={branches.length > 0 ? listId : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {branches.length > 0 && (
        <datalist id={listId} data-testid="branch-options">
          {branches.map((branch) => (
            <option key={branch.name} value={branch.name} />
          ))}
        </datalist>
      )}
    </>
  );
}

/** The checks the browser can make before asking: worded for the person filling the form. */
function checkForm(
  rows: RepositoryRow[],
  modules: string[],
  words: { enterRef: string; chooseModule: string },
): { field: string; message: string }[] {
  const errors: { field: string; message: string }[] = [];
  rows.forEach((row, index) => {
    if (!row.ref.trim()) errors.push({ field: `body.repositories.${index}.ref`, message: words.enterRef });
  });
  if (modules.length === 0) errors.push({ field: "body.modules", message: words.chooseModule });
  return errors;
}

/**
 * The API's field messages are terse fragments ("must not be empty"): the known ones become sentences for a
 * person, the others get a capital and a full stop.
 */
function humanizeFieldMessage(
  message: string | undefined,
  sentences: { chooseModule: string; noSuchRef: string },
  field?: "modules",
): string | undefined {
  if (!message) return undefined;
  if (field === "modules" && message === "must not be empty") return sentences.chooseModule;
  if (message === "no branch, tag or commit of that name") return sentences.noSuchRef;
  const sentence = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
