// SCIM's discovery documents (RFC 7643 §5-7) as a SCIM client reads them before provisioning: what the service
// supports, its two resource types, and their schemas, each with its own location under the base URL.

import { describe, expect, it } from "vitest";
import { resourceTypes, schemas, serviceProviderConfig } from "../../../src/identity/scim/discovery.js";
import { MAX_PAGE_SIZE } from "../../../src/identity/scim/query.js";
import { GROUP_SCHEMA, USER_SCHEMA } from "../../../src/identity/scim/resources.js";

const BASE = "https://gw.example.com/scim/v2";

describe("SCIM discovery", () => {
  it("says what the service supports: PATCH and filters up to a page, no bulk, sort, etag or passwords", () => {
    const config = serviceProviderConfig(BASE);
    expect(config).toMatchObject({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: MAX_PAGE_SIZE },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [{ type: "oauthbearertoken", primary: true }],
      meta: { resourceType: "ServiceProviderConfig", location: `${BASE}/ServiceProviderConfig` },
    });
  });

  it("lists Users and Groups, each with its schema and location", () => {
    expect(resourceTypes(BASE)).toEqual([
      expect.objectContaining({
        id: "User",
        endpoint: "/Users",
        schema: USER_SCHEMA,
        meta: { resourceType: "ResourceType", location: `${BASE}/ResourceTypes/User` },
      }),
      expect.objectContaining({
        id: "Group",
        endpoint: "/Groups",
        schema: GROUP_SCHEMA,
        meta: { resourceType: "ResourceType", location: `${BASE}/ResourceTypes/Group` },
      }),
    ]);
  });

  it("describes the User and Group schemas with their attributes", () => {
    const [user, group] = schemas(BASE) as [Record<string, unknown>, Record<string, unknown>];
    expect(user).toMatchObject({ id: USER_SCHEMA, meta: { location: `${BASE}/Schemas/${USER_SCHEMA}` } });
    expect(group).toMatchObject({ id: GROUP_SCHEMA, meta: { location: `${BASE}/Schemas/${GROUP_SCHEMA}` } });
    const names = (schema: Record<string, unknown>) =>
      (schema.attributes as { name: string }[]).map((a) => a.name);
    expect(names(user)).toEqual(expect.arrayContaining(["userName", "name", "emails", "active"]));
    expect(names(group)).toEqual(expect.arrayContaining(["displayName", "members"]));
  });
});
