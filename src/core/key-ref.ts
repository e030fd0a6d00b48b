// A key as every layer names it: its account and its id. Keys are looked up by the hash of their value
// (store/keys/key-store.ts) and then referred to by this pair everywhere — in Redis key names, settlements, leases,
// metrics labels.

/** Where a key hash points: the account and key id. */
export interface KeyRef {
  accountId: string;
  keyId: string;
}
