// Instants as the dashboard shows them: in the reader's time zone, with the UTC time on hover and the exact
// instant in the <time> element for machines. Budget resets are shown in the billing time zone instead,
// because that is where billing periods begin and end.

import { useUi } from "../hooks/use-ui.js";
import type { MessageKey, Values } from "../i18n/lookup.js";

export function Time({ iso }: { iso: string }) {
  const { instant, instantUtc } = useUi();
  return (
    <time dateTime={iso} title={instantUtc(iso)}>
      {instant(iso)}
    </time>
  );
}

/** A budget's reset: its time and UTC offset in the billing time zone, labelled as such. */
export function BillingTime({ iso }: { iso: string }) {
  const { t, billingInstant, instantUtc } = useUi();
  return (
    <>
      <time dateTime={iso} title={instantUtc(iso)}>
        {billingInstant(iso)}
      </time>{" "}
      <span class="muted small">{t("time.billingZone")}</span>
    </>
  );
}

const MARK = "\u0000";

/**
 * A message with one instant in it, such as "Created {date}": the instant rendered as a <Time>, so that it
 * keeps its UTC title inside the sentence.
 */
export function TimeMessage({
  message,
  name,
  iso,
  values,
}: {
  message: MessageKey;
  /** The placeholder the instant fills. */
  name: string;
  iso: string;
  values?: Values;
}) {
  const { t } = useUi();
  const [before = "", after = ""] = t(message, { ...values, [name]: MARK }).split(MARK);
  return (
    <>
      {before}
      <Time iso={iso} />
      {after}
    </>
  );
}
