// The shapes of the routes that tie a person to an identity provider and lift a sign-in lock: a signed-in
// person linking a provider to themselves, an operator allowing a link, an operator unlocking a person.

import { z } from "zod";
import { isoTime } from "../core/time-schema.js";

export const LinkProviderBody = z
  .strictObject({
    return_to: z
      .string()
      .optional()
      .meta({ description: 'A path of the dashboard to come back to, such as "/#/me" (the default)' }),
  })
  .meta({ id: "LinkProvider", examples: [{ return_to: "/#/me" }] });

export const LinkStarted = z
  .object({
    url: z.string().meta({ description: "Send the browser here: the provider's sign-in, then back" }),
  })
  .meta({ id: "LinkStarted" });

export const AllowLinkBody = z
  .strictObject({ provider: z.string().meta({ description: "The identity provider's id" }) })
  .meta({ id: "AllowLink", examples: [{ provider: "corp" }] });

export const LinkAllowed = z
  .object({
    provider: z.string(),
    until: isoTime.meta({
      description: "The person's next sign-in with the provider before this time links to them (once)",
    }),
  })
  .meta({ id: "LinkAllowed" });

export const Unlocked = z
  .object({ unlocked: z.boolean().meta({ description: "Whether the person's e-mail had been locked out" }) })
  .meta({ id: "Unlocked" });

/** The provider an invitation must be accepted through, for its page. */
export const RequiredProvider = z
  .object({
    id: z.string(),
    name: z.string(),
    start_url: z.string().meta({ description: "Navigate here (add ?return_to=/path) to sign in with it" }),
  })
  .nullable()
  .meta({
    description:
      "The identity provider this invitation's e-mail belongs to: accepted only by signing in with it; null: any way",
  });
