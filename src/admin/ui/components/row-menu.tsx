// A table row's actions behind one small button, so that a row carries no row of buttons: the WAI-ARIA menu
// button pattern (aria-haspopup, aria-expanded; arrows, Home and End move between the items, Tab too;
// Escape closes and gives the focus back to the button; a click elsewhere closes).
//
// The menu is placed with `position: fixed` next to its button, because the table's wrapper scrolls and
// would clip it (or grow a scroll bar) otherwise. Its coordinates are set through the CSSOM, which the
// Content-Security-Policy allows, unlike style attributes.

import { useEffect, useId, useLayoutEffect, useRef, useState } from "preact/hooks";

export interface MenuItem {
  label: string;
  /** A link to open, or else… */
  href?: string;
  /** …what choosing the item does. */
  onSelect?(): void;
  /** Marks what cannot be undone (in red text). */
  danger?: boolean;
}

/** Space kept between the button and the menu, and between the menu and the window's edge, in pixels. */
const GAP = 4;

export function RowMenu({ label, items }: { label: string; items: MenuItem[] }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();

  const menuItems = () => [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };
  // Which item takes the focus when the menu opens: the last one after ArrowUp on the button.
  const focusOnOpen = useRef<"first" | "last">("first");
  const openAt = (which: "first" | "last") => {
    focusOnOpen.current = which;
    setOpen(true);
  };

  // Placed under the button, its right edges aligned; above it when there is no room below.
  useLayoutEffect(() => {
    if (!open) return;
    const place = () => {
      const anchor = button.current?.getBoundingClientRect();
      const list = menu.current;
      if (!anchor || !list) return;
      const height = list.offsetHeight;
      const below = anchor.bottom + GAP + height <= window.innerHeight - GAP;
      list.style.top = `${below ? anchor.bottom + GAP : Math.max(GAP, anchor.top - GAP - height)}px`;
      list.style.left = `${Math.max(GAP, anchor.right - list.offsetWidth)}px`;
    };
    place();
    const items = menuItems();
    (focusOnOpen.current === "first" ? items[0] : items.at(-1))?.focus();
    window.addEventListener("scroll", place, true);
    window.addEventListener("resize", place);
    return () => {
      window.removeEventListener("scroll", place, true);
      window.removeEventListener("resize", place);
    };
  }, [open]);

  // A press anywhere outside the button and the menu closes it, leaving the focus where the press put it.
  useEffect(() => {
    if (!open) return;
    const outside = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!menu.current?.contains(target) && !button.current?.contains(target)) close(false);
    };
    document.addEventListener("pointerdown", outside);
    return () => document.removeEventListener("pointerdown", outside);
  }, [open]);

  const onButtonKey = (event: KeyboardEvent) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      openAt(event.key === "ArrowDown" ? "first" : "last");
    }
  };

  const onMenuKey = (event: KeyboardEvent) => {
    const items = menuItems();
    const at = items.indexOf(document.activeElement as HTMLElement);
    const move = (index: number) => {
      event.preventDefault();
      items[(index + items.length) % items.length]?.focus();
    };
    if (event.key === "ArrowDown") move(at + 1);
    else if (event.key === "ArrowUp") move(at - 1);
    else if (event.key === "Home") move(0);
    else if (event.key === "End") move(items.length - 1);
    else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close(true);
    }
  };

  // Tabbing out of the menu (past its last item, or back before its first) closes it.
  const onMenuFocusOut = (event: FocusEvent) => {
    const next = event.relatedTarget as Node | null;
    if (next === null || (!menu.current?.contains(next) && next !== button.current)) close(false);
  };

  const choose = (item: MenuItem) => {
    close(true);
    item.onSelect?.();
  };

  return (
    <div class="row-menu">
      <button
        ref={button}
        type="button"
        class="menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={label}
        title={label}
        onClick={() => (open ? close(false) : openAt("first"))}
        onKeyDown={onButtonKey}
      >
        <span aria-hidden="true">⋯</span>
      </button>
      {open && (
        <div
          ref={menu}
          id={menuId}
          role="menu"
          tabIndex={-1}
          aria-label={label}
          class="menu"
          onKeyDown={onMenuKey}
          onFocusOut={onMenuFocusOut}
        >
          {items.map((item) =>
            item.href !== undefined ? (
              <a
                key={item.label}
                role="menuitem"
                href={item.href}
                class={item.danger ? "menu-item destructive" : "menu-item"}
                onClick={() => close(false)}
              >
                {item.label}
              </a>
            ) : (
              <button
                key={item.label}
                type="button"
                role="menuitem"
                class={item.danger ? "menu-item destructive" : "menu-item"}
                onClick={() => choose(item)}
              >
                {item.label}
              </button>
            ),
          )}
        </div>
      )}
    </div>
  );
}
