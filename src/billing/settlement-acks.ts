// The markers of leased settlements whose reply this replica has read, per account, waiting to go with the
// account's next settle call, which deletes them from Redis (see lua/settle-n.lua). A call that fails gives
// its markers back, to go with the next one.

export class Acknowledgements {
  private readonly byAccount = new Map<string, string[]>();

  add(accountId: string, marker: string): void {
    const markers = this.byAccount.get(accountId);
    if (markers === undefined) this.byAccount.set(accountId, [marker]);
    else markers.push(marker);
  }

  /** The account's markers, handed over to a settle call (and no longer held here). */
  take(accountId: string): string[] {
    const markers = this.byAccount.get(accountId);
    if (markers === undefined) return [];
    this.byAccount.delete(accountId);
    return markers;
  }

  /** Markers of a call that failed: they go with the next one. */
  giveBack(accountId: string, markers: readonly string[]): void {
    for (const marker of markers) this.add(accountId, marker);
  }
}
