// The audit log as the account and operator pages show it: when, the entry as a sentence naming who did it
// (audit-actor.ts), what, and its details as sentences in the page's language (audit-text.ts), with the
// values as recorded on demand.

import { useMemo } from "preact/hooks";
import type { AuditEntry } from "../api/types.js";
import { useProviderNames } from "../hooks/use-provider-names.js";
import { useUi } from "../hooks/use-ui.js";
import type { MessageKey } from "../i18n/lookup.js";
import { href } from "../route.js";
import { auditHeadline } from "./audit-actor.js";
import { auditSentences, rawDetails } from "./audit-text.js";
import { Time } from "./time.js";

/** The audit log: each entry's details as sentences, with the values as recorded on demand. */
export function AuditTable({ entries, showAccount }: { entries: AuditEntry[]; showAccount: boolean }) {
  const { t, lang } = useUi();
  const providers = useProviderNames();
  const texts = useMemo(() => auditSentences(lang, entries), [lang, entries]);
  if (entries.length === 0) return <p class="muted">{t("audit.empty")}</p>;
  return (
    <div class="table-wrap">
      <table class="audit">
        <thead>
          <tr>
            <th scope="col">{t("audit.col.at")}</th>
            <th scope="col">{t("audit.col.actor")}</th>
            <th scope="col">{t("audit.col.action")}</th>
            {showAccount && <th scope="col">{t("audit.col.account")}</th>}
            <th scope="col">{t("audit.col.key")}</th>
            <th scope="col">{t("audit.col.details")}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry, i) => (
            <tr key={`${entry.at}-${i}`}>
              <td class="nowrap">
                <Time iso={entry.at} />
              </td>
              <td class="who-did">{auditHeadline(lang, entry, providers)}</td>
              <td data-action={entry.action}>{t(`audit.action.${entry.action}` as MessageKey)}</td>
              {showAccount && (
                <td>
                  <a href={href({ name: "account", accountId: entry.account_id })}>{entry.account_id}</a>
                </td>
              )}
              <td>
                {entry.key_id ? (
                  <a href={href({ name: "key", accountId: entry.account_id, keyId: entry.key_id })}>
                    <code>{entry.key_id}</code>
                  </a>
                ) : (
                  "—"
                )}
              </td>
              <td class="details">
                <span class="sentence">{texts[i]}</span>
                {Object.keys(entry.details).length > 0 && (
                  <details class="raw">
                    <summary class="raw-toggle">{t("audit.raw")}</summary>
                    <code>{rawDetails(entry.details)}</code>
                  </details>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
