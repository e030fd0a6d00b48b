// One key: its facts and budget, spend/requests and latency per day as charts, the recent request log (with
// bodies when the key keeps them), the view its client gets from GET /v1/key, and a form to change it.

import { useState } from "preact/hooks";
import { api, type CreatedKey, clientKeyView, type Key } from "./api.js";
import { UsageCharts } from "./charts.js";
import { ErrorNote, LoadProblem, PageTitle, RefreshButton, Status, useLoad } from "./components.js";
import { useUi } from "./context.js";
import type { MessageKey } from "./i18n.js";
import { KeyAlerts } from "./key-alerts.js";
import { type FormField, KeyFields } from "./key-form.js";
import { KeyRequestsSection } from "./key-requests.js";
import { StateBadge } from "./keys-table.js";
import { RevokeDialog } from "./revoke.js";
import { RotateDialog, RotatedPanel } from "./rotate.js";
import { href } from "./route.js";
import { BillingTime, Time, TimeMessage } from "./time.js";
import { useAction } from "./use-action.js";
import { checkKeyChanges, keyFormOf } from "./validate.js";

function loadKey(accountId: string, keyId: string) {
  return Promise.all([api.key(accountId, keyId), api.usage(accountId, keyId)]).then(([key, usage]) => ({
    key,
    days: usage.days,
  }));
}

export function KeyView({ accountId, keyId }: { accountId: string; keyId: string }) {
  const { t } = useUi();
  const loaded = useLoad(() => loadKey(accountId, keyId), `${accountId}/${keyId}`);
  const [revoking, setRevoking] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [rotated, setRotated] = useState<CreatedKey | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const switching = useAction();
  const data = loaded.data;
  const key = data?.key;
  const title = key ? t("key.title", { name: key.name }) : keyId;

  const replaceKey = (next: Key) => {
    if (data) loaded.set({ ...data, key: next });
  };
  // Revoked and expired keys are final here; a disabled one can still be enabled, rotated or revoked.
  const live =
    key !== undefined && (key.state === "active" || key.state === "rotating" || key.state === "disabled");
  const setDisabled = (disable: boolean) =>
    key &&
    switching.run(async () => {
      const next = await (disable ? api.disableKey : api.enableKey)(key.account_id, key.id);
      replaceKey(next);
      setDone(t(disable ? "key.disabledDone" : "key.enabledDone", { name: next.name }));
    });

  return (
    <>
      <p class="crumbs">
        <a href={href({ name: "account", accountId })}>← {t("key.back", { id: accountId })}</a>
      </p>
      <div class="title-row">
        <PageTitle title={title} />
        {key && <StateBadge k={key} />}
        <span class="spacer" />
        <RefreshButton loaded={loaded} />
        {live && (
          <>
            <button type="button" class="secondary" onClick={() => setRotating(true)}>
              {t("key.rotate")}
            </button>
            <button
              type="button"
              class="secondary"
              disabled={switching.busy}
              onClick={() => setDisabled(key.state !== "disabled")}
            >
              {key.state === "disabled" ? t("key.enable") : t("key.disable")}
            </button>
            <button type="button" class="danger" onClick={() => setRevoking(true)}>
              {t("keys.revoke")}
            </button>
          </>
        )}
      </div>
      {done !== null && <Status>{done}</Status>}
      {switching.error !== null && <ErrorNote error={switching.error} />}
      {rotated && <RotatedPanel rotated={rotated} onDismiss={() => setRotated(null)} />}
      <LoadProblem loaded={loaded} />
      {data && key && (
        <>
          <Facts k={key} />
          <KeyAlerts k={key} onSaved={replaceKey} />
          <section aria-labelledby="usage-heading">
            <h2 id="usage-heading">{t("key.usageTitle")}</h2>
            <UsageCharts days={data.days} />
          </section>
          <section aria-labelledby="requests-heading">
            <h2 id="requests-heading">{t("key.requests")}</h2>
            <p class="muted">{t("key.requestsIntro")}</p>
            <KeyRequestsSection
              accountId={accountId}
              keyId={keyId}
              logBodies={key.log_bodies}
              reloadKey={loaded.round}
            />
          </section>
          <div class="two-columns">
            <section aria-labelledby="client-heading">
              <h2 id="client-heading">{t("key.clientView")}</h2>
              <pre class="json" data-testid="client-view">
                {JSON.stringify(clientKeyView(key), null, 2)}
              </pre>
            </section>
            <section aria-labelledby="edit-heading">
              <h2 id="edit-heading">{t("key.edit")}</h2>
              {live ? (
                <EditKey k={key} onSaved={replaceKey} />
              ) : (
                <p class="muted">{t("key.inactive", { state: t(`keys.state.${key.state}`) })}</p>
              )}
            </section>
          </div>
        </>
      )}
      {revoking && key && (
        <RevokeDialog
          k={key}
          onCancel={() => setRevoking(false)}
          onDone={(next) => {
            setRevoking(false);
            setDone(t("revoke.done", { name: next.name }));
            replaceKey(next);
          }}
        />
      )}
      {rotating && key && (
        <RotateDialog
          k={key}
          onCancel={() => setRotating(false)}
          onDone={(next) => {
            setRotating(false);
            setDone(null);
            setRotated(next);
            replaceKey(next);
          }}
        />
      )}
    </>
  );
}

function Facts({ k }: { k: Key }) {
  const { t, rub, num } = useUi();
  const budget = k.budget;
  const limits = [
    k.limits.rpm !== null && t("key.limit.rpm", { n: num(k.limits.rpm) }),
    k.limits.tpm !== null && t("key.limit.tpm", { n: num(k.limits.tpm) }),
    k.limits.max_parallel !== null && t("key.limit.parallel", { n: num(k.limits.max_parallel) }),
  ].filter((limit): limit is string => limit !== false);
  return (
    <section class="card facts" aria-labelledby="facts-heading">
      <h2 id="facts-heading">{t("key.facts")}</h2>
      {k.grace_until !== null && (
        <p class="note">
          <TimeMessage message="key.graceUntil" name="date" iso={k.grace_until} />
        </p>
      )}
      {k.state === "disabled" && k.disabled_at !== null && (
        <p class="note warning">
          <TimeMessage message="key.disabledSince" name="date" iso={k.disabled_at} />
        </p>
      )}
      <dl>
        <dt>{t("keys.col.id")}</dt>
        <dd>
          <code>{k.id}</code>
        </dd>
        <dt>{t("keys.col.hint")}</dt>
        <dd>
          <code>…{k.hint}</code>
        </dd>
        <dt>{t("key.created")}</dt>
        <dd>
          <Time iso={k.created_at} />
        </dd>
        {k.revoked_at !== null && (
          <>
            <dt>{t("key.revoked")}</dt>
            <dd>
              <Time iso={k.revoked_at} />
            </dd>
          </>
        )}
        <dt>{t("keys.col.expires")}</dt>
        <dd>{k.expires_at ? <Time iso={k.expires_at} /> : t("common.never")}</dd>
        <dt>{t("keys.col.budget")}</dt>
        <dd>
          {budget ? (
            <div class="budget">
              <span class="spent">
                {t("keys.spentOf", {
                  spent: rub(budget.spent),
                  initial: rub(budget.initial),
                  period: t(`keys.period.${budget.period}` as MessageKey),
                })}
              </span>
              <progress
                max={budget.initial}
                value={Math.min(budget.spent, budget.initial)}
                aria-label={t("keys.spentLabel", { spent: rub(budget.spent), initial: rub(budget.initial) })}
              />
              <span class="muted">{t("keys.remaining", { remaining: rub(budget.remaining) })}</span>
            </div>
          ) : (
            <span class="muted">{t("keys.noBudget")}</span>
          )}
        </dd>
        <dt>{t("keys.col.reset")}</dt>
        <dd>{budget ? <BillingTime iso={budget.reset_at} /> : "—"}</dd>
        <dt>{t("key.limits")}</dt>
        <dd>{limits.length === 0 ? <span class="muted">{t("key.noLimits")}</span> : limits.join(", ")}</dd>
        <dt>{t("keys.col.models")}</dt>
        <dd>{k.allowed_models === null ? t("keys.allModels") : k.allowed_models.join(", ")}</dd>
        <dt>{t("keys.col.privacy")}</dt>
        <dd>{k.log_bodies ? t("keys.bodiesOn") : t("keys.bodiesOff")}</dd>
      </dl>
    </section>
  );
}

function EditKey({ k, onSaved }: { k: Key; onSaved(key: Key): void }) {
  const { t } = useUi();
  const state = { ...k, budget: k.budget?.initial ?? null };
  const [form, setForm] = useState(() => keyFormOf(state));
  const [left, setLeft] = useState<Set<FormField>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const { busy, error, run, clearError } = useAction();
  const [saved, setSaved] = useState(false);
  const checked = checkKeyChanges(state, form);
  const problems = checked.ok ? {} : checked.problems;

  const submit = async (event: Event) => {
    event.preventDefault();
    setSubmitted(true);
    setSaved(false);
    if (!checked.ok) return clearError();
    await run(async () => {
      const next = await api.updateKey(k.account_id, k.id, checked.body);
      setSaved(true);
      setSubmitted(false);
      onSaved(next);
    });
  };

  return (
    <form class="card form" method="post" onSubmit={submit} noValidate>
      <KeyFields
        form={form}
        problems={problems}
        shown={(field) => submitted || left.has(field)}
        editing={true}
        onChange={(next) => {
          setSaved(false);
          setForm(next);
        }}
        onLeave={(field) => setLeft((fields) => new Set(fields).add(field))}
      />
      {submitted && !checked.ok && (
        <p class="note error" role="alert">
          {checked.nothing ? t("v.nothing") : t("newKey.fix")}
        </p>
      )}
      {error !== null && <ErrorNote error={error} />}
      {saved && <Status>{t("key.saved")}</Status>}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? t("common.saving") : t("common.save")}
        </button>
      </div>
    </form>
  );
}
