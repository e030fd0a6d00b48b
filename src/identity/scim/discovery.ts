// SCIM's discovery documents (RFC 7644 §4): what this service provider supports (ServiceProviderConfig), its
// resource types (User, Group) and their schemas — the core schemas as scimmy defines them, of which docs/
// scim.md says which attributes are kept.

import SCIMMY from "scimmy";
import { MAX_PAGE_SIZE } from "./query.js";
import { GROUP_SCHEMA, USER_SCHEMA } from "./resources.js";

const CONFIG_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
const RESOURCE_TYPE_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";

export function serviceProviderConfig(base: string): Record<string, unknown> {
  return {
    schemas: [CONFIG_SCHEMA],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_PAGE_SIZE },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "OAuth Bearer Token",
        description:
          "A SCIM token made by an operator (tunnel-gateway scim-tokens create), as a bearer token.",
        primary: true,
      },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${base}/ServiceProviderConfig` },
  };
}

export function resourceTypes(base: string): Record<string, unknown>[] {
  return [
    { id: "User", name: "User", endpoint: "/Users", description: "User Account", schema: USER_SCHEMA },
    { id: "Group", name: "Group", endpoint: "/Groups", description: "Group", schema: GROUP_SCHEMA },
  ].map((type) => ({
    schemas: [RESOURCE_TYPE_SCHEMA],
    ...type,
    meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/${type.id}` },
  }));
}

export function schemas(base: string): Record<string, unknown>[] {
  return [SCIMMY.Schemas.User.definition, SCIMMY.Schemas.Group.definition].map((definition) => {
    const described = definition.describe() as Record<string, unknown>;
    return { ...described, meta: { resourceType: "Schema", location: `${base}/Schemas/${definition.id}` } };
  });
}
