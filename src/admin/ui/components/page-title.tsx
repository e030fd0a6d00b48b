// A view's heading: it names the page in the document's title and takes the focus when the view opens, so
// that a screen reader announces the new page.

import { useEffect, useRef } from "preact/hooks";
import { useUi } from "../hooks/use-ui.js";

/** The view's heading: sets the document title and takes the focus, so that screen readers announce it. */
export function PageTitle({ title }: { title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  const { t } = useUi();
  useEffect(() => {
    document.title = `${title} · ${t("app.name")}`;
  }, [title, t]);
  useEffect(() => {
    ref.current?.focus({ preventScroll: true });
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {title}
    </h1>
  );
}
