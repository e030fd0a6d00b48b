// What the service layer needs from the outside world: the stores, the billing calendar and a clock that
// tests can set.

import type { PeriodCalendar } from "../billing/periods.js";
import type { AccountStore } from "../store/account-store.js";
import type { KeyStore } from "../store/key-store.js";

export interface ServiceContext {
  accounts: AccountStore;
  keys: KeyStore;
  calendar: PeriodCalendar;
  now: () => number;
}
