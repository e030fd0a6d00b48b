// A browser as far as the sign-in flow needs one: cookies kept per host and port (Set-Cookie's attributes
// read for what a test needs to see of them), redirects followed by hand so that each hop can be checked, and
// forms posted. Good enough to drive the OpenID redirect flow over real HTTP; Chromium is for the pages.

export interface SetCookie {
  name: string;
  value: string;
  attributes: Map<string, string>;
}

export function parseSetCookie(header: string): SetCookie {
  const [pair = "", ...rest] = header.split(";");
  const at = pair.indexOf("=");
  const attributes = new Map<string, string>();
  for (const part of rest) {
    const [key = "", value = ""] = part.trim().split("=");
    attributes.set(key.toLowerCase(), value);
  }
  return { name: pair.slice(0, at).trim(), value: pair.slice(at + 1).trim(), attributes };
}

export interface Hop {
  url: string;
  status: number;
  location: string | null;
  setCookies: SetCookie[];
}

export class Browser {
  /** Cookies by origin (host and port), then name. */
  readonly jar = new Map<string, Map<string, string>>();
  readonly userAgent = "TestBrowser/1.0";

  cookies(url: string): Map<string, string> {
    const origin = new URL(url).origin;
    let cookies = this.jar.get(origin);
    if (!cookies) {
      cookies = new Map();
      this.jar.set(origin, cookies);
    }
    return cookies;
  }

  private store(url: string, res: Response): SetCookie[] {
    const set = res.headers.getSetCookie().map(parseSetCookie);
    const cookies = this.cookies(url);
    for (const cookie of set) {
      if (cookie.attributes.get("max-age") === "0") cookies.delete(cookie.name);
      else cookies.set(cookie.name, cookie.value);
    }
    return set;
  }

  /** One request with this browser's cookies, no redirect followed. */
  async request(url: string, init: RequestInit = {}): Promise<{ res: Response; hop: Hop }> {
    const headers = new Headers(init.headers);
    const cookies = [...this.cookies(url)].map(([name, value]) => `${name}=${value}`).join("; ");
    if (cookies) headers.set("cookie", cookies);
    headers.set("user-agent", this.userAgent);
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    const setCookies = this.store(url, res);
    const location = res.headers.get("location");
    return {
      res,
      hop: {
        url,
        status: res.status,
        location: location === null ? null : new URL(location, url).href,
        setCookies,
      },
    };
  }

  /** Navigates to a URL and follows redirects (at most `max`), returning every hop and the last answer. */
  async navigate(url: string, max = 20): Promise<{ hops: Hop[]; res: Response }> {
    const hops: Hop[] = [];
    let next: string | null = url;
    let init: RequestInit = {};
    for (let i = 0; i < max && next; i++) {
      const { res, hop }: { res: Response; hop: Hop } = await this.request(next, init);
      hops.push(hop);
      init = {};
      if (hop.status < 300 || hop.status >= 400 || hop.location === null) return { hops, res };
      await res.arrayBuffer();
      next = hop.location;
    }
    throw new Error(`more than ${max} redirects from ${url}`);
  }

  /** Posts a form as a browser would and follows the redirects. */
  async submit(url: string, fields: Record<string, string>): Promise<{ hops: Hop[]; res: Response }> {
    const { res, hop } = await this.request(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(url).origin },
      body: new URLSearchParams(fields).toString(),
    });
    if (hop.location === null) return { hops: [hop], res };
    await res.arrayBuffer();
    const rest = await this.navigate(hop.location);
    return { hops: [hop, ...rest.hops], res: rest.res };
  }
}
