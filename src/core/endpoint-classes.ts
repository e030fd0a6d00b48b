// The classes of forwarded paths (proxy/request/endpoints.ts explains each and holds the table), and the form of a
// path rule the configuration may add to the table.

export const ENDPOINT_CLASSES = ["generation", "input-only", "free", "management", "other"] as const;
export type EndpointClass = (typeof ENDPOINT_CLASSES)[number];

/** The endpoint classes whose requests are metered. */
export type UsageClass = Exclude<EndpointClass, "free" | "management">;

/** A path rule from the configuration, validated: "/path", "METHOD /path", either ending in "/*". */
export function isEndpointPattern(pattern: string): boolean {
  return /^(?:[A-Za-z]+ )?\/[^\s?#]*$/.test(pattern);
}
