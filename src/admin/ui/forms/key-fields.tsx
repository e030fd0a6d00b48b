// The fields of a key — name, budget windows (an amount a day, a week, a month), lifetime, models, limits,
// privacy — for the create and edit forms, each with its label, help and the in-page check of the server's rule.

import { useId } from "preact/hooks";
import { PERIODS } from "../../../core/periods.js";
import { useUi } from "../hooks/use-ui.js";
import { Field, onLeft, RublesInput } from "./field.js";
import type { KeyForm, KeyFormProblems } from "./validate.js";

export type FormField = keyof KeyFormProblems;

const TTL_SUGGESTIONS = ["15m", "1h", "1d", "7d", "30d", "90d", "1w", "never"];

export function KeyFields<F extends Omit<KeyForm, "ttl"> & { ttl?: string }>({
  form,
  problems,
  shown,
  editing,
  onChange,
  onLeave,
}: {
  form: F;
  problems: KeyFormProblems;
  /** The fields whose problems are shown: those left once, or all after a submit. */
  shown: (field: FormField) => boolean;
  editing: boolean;
  onChange(form: F): void;
  onLeave(field: FormField): void;
}) {
  const leave = (field: FormField) => onLeft(() => onLeave(field));
  const { t } = useUi();
  const ttlList = useId();
  const problem = (field: FormField) => (shown(field) ? problems[field] : undefined);
  const set = <K extends keyof F>(name: K, value: F[K]) => onChange({ ...form, [name]: value });

  return (
    <>
      <Field label={t("field.name")} help={t("field.name.help")} problem={problem("name")}>
        {(control) => (
          <input
            {...control}
            type="text"
            required
            autoComplete="off"
            value={form.name}
            onInput={(event) => set("name", event.currentTarget.value as F["name"])}
            onBlur={leave("name")}
          />
        )}
      </Field>
      <fieldset class="field-group">
        <legend>{t("field.budgets")}</legend>
        <p class="help">{editing ? t("field.budgets.editHelp") : t("field.budgets.help")}</p>
        <div class="field-row">
          {PERIODS.map((period) => (
            <Field key={period} label={t(`budgets.field.${period}`)} problem={problem(`budget.${period}`)}>
              {(control) => (
                <RublesInput
                  control={control}
                  placeholder={t("budgets.placeholder")}
                  value={form.budgets[period]}
                  onValue={(value) => set("budgets", { ...form.budgets, [period]: value } as F["budgets"])}
                  onBlur={leave(`budget.${period}`)}
                />
              )}
            </Field>
          ))}
        </div>
      </fieldset>
      {form.ttl !== undefined && (
        <Field label={t("field.ttl")} help={t("field.ttl.help")} problem={problem("ttl")}>
          {(control) => (
            <>
              <input
                {...control}
                type="text"
                autoComplete="off"
                spellcheck={false}
                list={ttlList}
                placeholder="30d"
                value={form.ttl}
                onInput={(event) => set("ttl", event.currentTarget.value as F["ttl"])}
                onBlur={leave("ttl")}
              />
              <datalist id={ttlList}>
                {TTL_SUGGESTIONS.map((value) => (
                  <option key={value} value={value} />
                ))}
              </datalist>
            </>
          )}
        </Field>
      )}
      <Field label={t("field.models")} help={t("field.models.help")} problem={problem("models")}>
        {(control) => (
          <textarea
            {...control}
            rows={2}
            spellcheck={false}
            placeholder="demo-small, demo-large"
            value={form.models}
            onInput={(event) => set("models", event.currentTarget.value as F["models"])}
            onBlur={leave("models")}
          />
        )}
      </Field>
      <fieldset class="field-group">
        <legend>{t("field.limits")}</legend>
        <p class="help">{t("field.limits.help")}</p>
        <div class="field-row">
          {(
            [
              ["rpm", "field.rpm"],
              ["tpm", "field.tpm"],
              ["maxParallel", "field.maxParallel"],
            ] as const
          ).map(([field, label]) => (
            <Field key={field} label={t(label)} problem={problem(field)}>
              {(control) => (
                <input
                  {...control}
                  type="text"
                  inputMode="numeric"
                  autoComplete="off"
                  placeholder={t("field.limit.none")}
                  value={form[field]}
                  onInput={(event) => set(field, event.currentTarget.value as F[typeof field])}
                  onBlur={leave(field)}
                />
              )}
            </Field>
          ))}
        </div>
      </fieldset>
      <LogBodiesField
        checked={form.logBodies}
        onChange={(value) => set("logBodies", value as F["logBodies"])}
      />
    </>
  );
}

function LogBodiesField({ checked, onChange }: { checked: boolean; onChange(value: boolean): void }) {
  const { t } = useUi();
  const id = useId();
  return (
    <div class="field checkbox">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        aria-describedby={`${id}-help`}
        onChange={(event) => onChange(event.currentTarget.checked)}
      />
      <label for={id}>{t("field.logBodies")}</label>
      <p class="help" id={`${id}-help`}>
        {t("field.logBodies.help")}
      </p>
    </div>
  );
}
