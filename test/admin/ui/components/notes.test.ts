// The one piece of the dashboard's shared components that is logic rather than markup: what a failure reads
// as on the page. (The components themselves are exercised in Chromium by test/e2e/dashboard.test.ts.)

import { describe, expect, it } from "vitest";
import { ApiError } from "../../../../src/admin/ui/api/client.js";
import { errorText } from "../../../../src/admin/ui/components/notes.js";
import { makeUi } from "../../../../src/admin/ui/hooks/use-ui.js";

describe("errorText", () => {
  it("shows the gateway's own message, which is written for people", () => {
    const { t } = makeUi("ru");
    expect(errorText(new ApiError(403, "forbidden", "Only the operator's admin token may do this."), t)).toBe(
      "Only the operator's admin token may do this.",
    );
  });

  it("says the gateway could not be reached in the page's language for a network failure", () => {
    expect(errorText(new ApiError(0, "network_error", "network error"), makeUi("en").t)).toBe(
      "The gateway could not be reached. Check the connection and try again.",
    );
    expect(errorText(new ApiError(0, "network_error", "network error"), makeUi("ru").t)).toBe(
      "Не удалось связаться со шлюзом. Проверьте соединение и попробуйте ещё раз.",
    );
  });

  it("shows any other error's message, and anything else as text", () => {
    const { t } = makeUi("en");
    expect(errorText(new TypeError("x is undefined"), t)).toBe("x is undefined");
    expect(errorText("plain", t)).toBe("plain");
    expect(errorText(null, t)).toBe("null");
  });
});
