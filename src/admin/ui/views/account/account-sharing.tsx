// An account's share of a full model server (docs/fair-sharing.md): its queueing on the replica that answers,
// now; the waits of its keys' recent requests, whichever replica served them; and its weight, priority and
// longest wait — which operators may change here.

import { useState } from "preact/hooks";
import { MAX_PRIORITY, MAX_WAIT_MS, MAX_WEIGHT } from "../../../../core/sharing.js";
import { api } from "../../api/endpoints.js";
import type { Account, AccountQueue } from "../../api/types.js";
import { ErrorNote, LoadProblem, Status } from "../../components/notes.js";
import { Field } from "../../forms/field.js";
import { checkWhole } from "../../forms/validate.js";
import { useAction } from "../../hooks/use-action.js";
import { useLoad } from "../../hooks/use-load.js";
import { useSession } from "../../hooks/use-session.js";
import { useUi } from "../../hooks/use-ui.js";

export function AccountSharingSection({
  account,
  onSaved,
}: {
  account: Account;
  onSaved(account: Account): void;
}) {
  const { t } = useUi();
  const { me } = useSession();
  const loaded = useLoad(() => api.accountQueue(account.id), `queue/${account.id}`);
  const mayChange =
    me.actions.every_account.includes("account.sharing") ||
    (me.actions.accounts[account.id]?.includes("account.sharing") ?? false);
  return (
    <section aria-labelledby="sharing-heading">
      <div class="section-head">
        <h2 id="sharing-heading">{t("sharing.title")}</h2>
        <button type="button" class="secondary" onClick={loaded.reload} aria-busy={loaded.loading}>
          {t("sharing.refresh")}
        </button>
      </div>
      <p class="muted">{t("sharing.intro")}</p>
      <LoadProblem loaded={loaded} />
      {loaded.data && <QueueFacts queue={loaded.data} />}
      {mayChange ? <SharingForm account={account} onSaved={onSaved} /> : <SharingFacts account={account} />}
    </section>
  );
}

function QueueFacts({ queue }: { queue: AccountQueue }) {
  const { t, num, ms } = useUi();
  const recent = queue.recent;
  return (
    <div class="two-columns" data-testid="queueing">
      <div class="card">
        <h3>{t("sharing.now")}</h3>
        {queue.replica === null || queue.limit === null ? (
          <p class="muted">{t("sharing.noLimit")}</p>
        ) : (
          <dl class="sharing-facts">
            <dt>{t("sharing.places")}</dt>
            <dd data-testid="places">
              {t(queue.shared ? "sharing.placesShared" : "sharing.placesOwn", {
                used: num(queue.replica.in_use),
                limit: num(queue.limit),
              })}
            </dd>
            <dt>{t("sharing.waitingAll")}</dt>
            <dd>{num(queue.replica.waiting)}</dd>
            <dt>{t("sharing.waitingAccount")}</dt>
            <dd data-testid="account-waiting">{num(queue.replica.account_waiting)}</dd>
            <dt>{t("sharing.oldest")}</dt>
            <dd>{queue.replica.account_waiting === 0 ? "—" : ms(queue.replica.oldest_wait_ms)}</dd>
          </dl>
        )}
      </div>
      <div class="card">
        <h3>{t("sharing.recent")}</h3>
        {recent.requests === 0 ? (
          <p class="muted">{t("sharing.recentNone")}</p>
        ) : (
          <dl class="sharing-facts">
            <dt>{t("sharing.recentWaited")}</dt>
            <dd data-testid="recent-waited">
              {t("sharing.ofRequests", { n: num(recent.waited), of: num(recent.requests) })}
            </dd>
            <dt>{t("sharing.recentWait")}</dt>
            <dd>
              {t("sharing.percentiles", {
                p50: ms(recent.p50_queue_ms),
                p95: ms(recent.p95_queue_ms),
                max: ms(recent.max_queue_ms),
              })}
            </dd>
            <dt>{t("sharing.busy")}</dt>
            <dd data-testid="server-busy">{num(recent.server_busy)}</dd>
          </dl>
        )}
      </div>
    </div>
  );
}

function SharingFacts({ account }: { account: Account }) {
  const { t, num, ms } = useUi();
  const { sharing } = account;
  return (
    <dl class="sharing-facts card">
      <dt>{t("sharing.weight")}</dt>
      <dd data-testid="weight">{num(sharing.weight)}</dd>
      <dt>{t("sharing.priority")}</dt>
      <dd>{sharing.priority === null ? t("sharing.priorityNone") : num(sharing.priority)}</dd>
      <dt>{t("sharing.maxWait")}</dt>
      <dd>{sharing.max_wait_ms === null ? t("sharing.maxWaitDefault") : ms(sharing.max_wait_ms)}</dd>
    </dl>
  );
}

function SharingForm({ account, onSaved }: { account: Account; onSaved(account: Account): void }) {
  const { t } = useUi();
  const text = (value: number | null) => (value === null ? "" : String(value));
  const [weight, setWeight] = useState(String(account.sharing.weight));
  const [priority, setPriority] = useState(text(account.sharing.priority));
  const [maxWait, setMaxWait] = useState(text(account.sharing.max_wait_ms));
  const [touched, setTouched] = useState(false);
  const [saved, setSaved] = useState(false);
  const { busy, error, run, clearError } = useAction();
  const checked = {
    weight: checkWhole(weight, { min: 1, max: MAX_WEIGHT, optional: false }, "v.weight"),
    priority: checkWhole(priority, { min: -MAX_PRIORITY, max: MAX_PRIORITY, optional: true }, "v.priority"),
    maxWait: checkWhole(maxWait, { min: 1, max: MAX_WAIT_MS, optional: true }, "v.maxWait"),
  };
  const problem = (field: keyof typeof checked) => {
    const verdict = checked[field];
    return touched && !verdict.ok ? verdict.problem : undefined;
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setTouched(true);
    setSaved(false);
    const { weight: w, priority: p, maxWait: m } = checked;
    if (!w.ok || !p.ok || !m.ok) return clearError();
    await run(async () => {
      onSaved(
        await api.setAccountSharing(account.id, { weight: w.value, priority: p.value, max_wait_ms: m.value }),
      );
      setSaved(true);
    });
  };

  const input = (value: string, set: (next: string) => void, placeholder: string) => (control: object) => (
    <input
      {...control}
      type="text"
      inputMode="numeric"
      autoComplete="off"
      placeholder={placeholder}
      value={value}
      onInput={(event) => {
        setSaved(false);
        set(event.currentTarget.value);
      }}
    />
  );

  return (
    <form class="card form" method="post" onSubmit={submit} noValidate data-testid="sharing-form">
      <div class="sharing-fields">
        <Field label={t("sharing.weight")} help={t("sharing.weight.help")} problem={problem("weight")}>
          {input(weight, setWeight, "1")}
        </Field>
        <Field label={t("sharing.priority")} help={t("sharing.priority.help")} problem={problem("priority")}>
          {input(priority, setPriority, "0")}
        </Field>
        <Field label={t("sharing.maxWait")} help={t("sharing.maxWait.help")} problem={problem("maxWait")}>
          {input(maxWait, setMaxWait, "30000")}
        </Field>
      </div>
      {error !== null && <ErrorNote error={error} />}
      {saved && <Status>{t("sharing.saved")}</Status>}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? t("common.saving") : t("sharing.save")}
        </button>
      </div>
    </form>
  );
}
