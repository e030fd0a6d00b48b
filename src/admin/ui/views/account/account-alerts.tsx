// An account's alerts: its low-balance mark, its own webhook — set with a new signing secret shown once, tested
// with a button, removed — and its recent events with each delivery's outcome.

import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import type { AccountAlerts, CreatedWebhook, TestResult } from "../../api/types.js";
import { ErrorNote, LoadProblem, Status } from "../../components/notes.js";
import { Time } from "../../components/time.js";
import { Field, RublesInput } from "../../forms/field.js";
import { checkAmount } from "../../forms/validate.js";
import { useAction } from "../../hooks/use-action.js";
import { useLoad } from "../../hooks/use-load.js";
import { useUi } from "../../hooks/use-ui.js";
import { AlertsSummary } from "./alerts-summary.js";
import { EventsTable } from "./events-table.js";

function loadAlerts(accountId: string) {
  return Promise.all([api.accountAlerts(accountId), api.events(accountId, 50)]).then(([alerts, events]) => ({
    alerts,
    events: events.events,
  }));
}

export function AccountAlertsSection({ accountId, canChange }: { accountId: string; canChange: boolean }) {
  const { t } = useUi();
  const loaded = useLoad(() => loadAlerts(accountId), `alerts/${accountId}`);
  const data = loaded.data;
  const setAlerts = (alerts: AccountAlerts) => data && loaded.set({ ...data, alerts });
  return (
    <section aria-labelledby="alerts-heading">
      <h2 id="alerts-heading">{t("alerts.title")}</h2>
      <p class="muted">{t("alerts.intro")}</p>
      <LoadProblem loaded={loaded} />
      {data && (
        <>
          {canChange ? (
            <div class="two-columns">
              <LowBalanceForm alerts={data.alerts} onSaved={setAlerts} />
              <WebhookCard alerts={data.alerts} onChanged={loaded.reload} />
            </div>
          ) : (
            <AlertsSummary alerts={data.alerts} />
          )}
          <div class="section-head">
            <h3>{t("events.title")}</h3>
            <button type="button" class="secondary" onClick={loaded.reload} aria-busy={loaded.loading}>
              {t("events.refresh")}
            </button>
          </div>
          <p class="muted">{t("events.intro")}</p>
          <EventsTable events={data.events} accountId={accountId} />
        </>
      )}
    </section>
  );
}

function LowBalanceForm({
  alerts,
  onSaved,
}: {
  alerts: AccountAlerts;
  onSaved(alerts: AccountAlerts): void;
}) {
  const { t } = useUi();
  const [value, setValue] = useState(alerts.low_balance === null ? "" : String(alerts.low_balance));
  const [touched, setTouched] = useState(false);
  const [saved, setSaved] = useState(false);
  const { busy, error, run, clearError } = useAction();
  const checked = value.trim() === "" ? ({ ok: true, value: null } as const) : checkAmount(value, true);

  const submit = async (event: Event) => {
    event.preventDefault();
    setTouched(true);
    setSaved(false);
    if (!checked.ok) return clearError();
    await run(async () => {
      onSaved(await api.setLowBalance(alerts.account_id, checked.value));
      setSaved(true);
    });
  };

  return (
    <form class="card form" method="post" onSubmit={submit} noValidate>
      <Field
        label={t("alerts.lowBalance")}
        help={t("alerts.lowBalance.help")}
        problem={touched && !checked.ok ? checked.problem : undefined}
      >
        {(control) => (
          <RublesInput
            control={control}
            placeholder="100"
            value={value}
            onValue={(next) => {
              setSaved(false);
              setValue(next);
            }}
            onBlur={() => setTouched(true)}
          />
        )}
      </Field>
      {error !== null && <ErrorNote error={error} />}
      {saved && <Status>{t("alerts.saved")}</Status>}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? t("common.saving") : t("alerts.lowBalance.save")}
        </button>
      </div>
    </form>
  );
}

function WebhookCard({ alerts, onChanged }: { alerts: AccountAlerts; onChanged(): void }) {
  const { t } = useUi();
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [editing, setEditing] = useState(false);
  const [removed, setRemoved] = useState(false);
  const [tested, setTested] = useState<TestResult | null>(null);
  const remove = useAction();
  const test = useAction();
  const webhook = alerts.webhook;

  if (created) {
    return (
      <SecretPanel
        created={created}
        onDone={() => {
          setCreated(null);
          onChanged();
        }}
      />
    );
  }
  return (
    <div class="card" data-testid="webhook">
      <h3>{t("alerts.webhook")}</h3>
      {removed && <Status>{t("alerts.webhook.removed")}</Status>}
      {webhook && !editing ? (
        <>
          <p>
            <code class="url">{webhook.url}</code>
          </p>
          <p class="muted">
            {t("alerts.webhook.secretHint", { hint: webhook.secret_hint })} ·{" "}
            <Time iso={webhook.created_at} /> ·{" "}
            {t("alerts.webhook.events", {
              events: webhook.events?.join(", ") ?? t("alerts.webhook.allEvents"),
            })}
          </p>
          {tested && (
            <p
              class={tested.delivered ? "note success" : "note error"}
              role="status"
              data-testid="test-result"
            >
              {tested.delivered
                ? t("alerts.webhook.delivered", { id: tested.event_id, status: String(tested.status_code) })
                : t("alerts.webhook.notDelivered", { id: tested.event_id, error: tested.error ?? "" })}
            </p>
          )}
          {test.error !== null && <ErrorNote error={test.error} />}
          {remove.error !== null && <ErrorNote error={remove.error} />}
          <div class="actions">
            <button
              type="button"
              disabled={test.busy}
              onClick={() =>
                test.run(async () => {
                  setTested(null);
                  setTested(await api.testWebhook(alerts.account_id));
                })
              }
            >
              {test.busy ? t("alerts.webhook.testing") : t("alerts.webhook.test")}
            </button>
            <button type="button" class="secondary" onClick={() => setEditing(true)}>
              {t("alerts.webhook.replace")}
            </button>
            <button
              type="button"
              class="danger"
              disabled={remove.busy}
              onClick={() =>
                remove.run(async () => {
                  await api.removeWebhook(alerts.account_id);
                  setRemoved(true);
                  onChanged();
                })
              }
            >
              {t("alerts.webhook.remove")}
            </button>
          </div>
        </>
      ) : (
        <>
          {!webhook && <p class="muted">{t("alerts.webhook.none")}</p>}
          <WebhookForm
            accountId={alerts.account_id}
            initial={webhook?.url ?? ""}
            onSet={(next) => {
              setRemoved(false);
              setEditing(false);
              setCreated(next);
            }}
          />
        </>
      )}
    </div>
  );
}

function WebhookForm({
  accountId,
  initial,
  onSet,
}: {
  accountId: string;
  initial: string;
  onSet(created: CreatedWebhook): void;
}) {
  const { t } = useUi();
  const [url, setUrl] = useState(initial);
  const [touched, setTouched] = useState(false);
  const { busy, error, run, clearError } = useAction();
  const empty = url.trim() === "";

  const submit = async (event: Event) => {
    event.preventDefault();
    setTouched(true);
    if (empty) return clearError();
    await run(async () => onSet(await api.setWebhook(accountId, url.trim())));
  };

  return (
    <form class="form" method="post" onSubmit={submit} noValidate>
      <Field
        label={t("alerts.webhook.url")}
        help={t("alerts.webhook.url.help")}
        problem={touched && empty ? "alerts.url.empty" : undefined}
      >
        {(control) => (
          <input
            {...control}
            type="url"
            autoComplete="off"
            spellcheck={false}
            placeholder="https://example.com/hooks/tunnel-gateway"
            value={url}
            onInput={(event) => setUrl(event.currentTarget.value)}
          />
        )}
      </Field>
      {error !== null && <ErrorNote error={error} />}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? t("common.saving") : t("alerts.webhook.set")}
        </button>
      </div>
    </form>
  );
}

/** The new signing secret, shown this once with a copy button, as a new key is. */
function SecretPanel({ created, onDone }: { created: CreatedWebhook; onDone(): void }) {
  const { t } = useUi();
  const heading = useRef<HTMLHeadingElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [copy, setCopy] = useState<"copied" | "failed" | null>(null);
  useEffect(() => heading.current?.focus(), []);

  const copySecret = async () => {
    try {
      await navigator.clipboard.writeText(created.secret);
      setCopy("copied");
    } catch {
      input.current?.focus();
      input.current?.select();
      setCopy("failed");
    }
  };

  return (
    <section class="card created" aria-labelledby="secret-heading">
      <h3 id="secret-heading" ref={heading} tabIndex={-1}>
        {t("alerts.secret.title")}
      </h3>
      <p>
        <code class="url">{created.webhook.url}</code>
      </p>
      <p class="note warning" role="alert">
        {t("alerts.secret.warning")}
      </p>
      <label for="webhook-secret">{t("alerts.secret.value")}</label>
      <div class="copy-row">
        <input
          id="webhook-secret"
          ref={input}
          class="secret"
          type="text"
          readOnly
          value={created.secret}
          spellcheck={false}
          autoComplete="off"
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" onClick={copySecret}>
          {t("created.copy")}
        </button>
      </div>
      <p class="copy-status" role="status">
        {copy === "copied" ? t("created.copied") : copy === "failed" ? t("created.copyFailed") : ""}
      </p>
      <div class="actions">
        <button type="button" onClick={onDone}>
          {t("alerts.secret.done")}
        </button>
      </div>
    </section>
  );
}
