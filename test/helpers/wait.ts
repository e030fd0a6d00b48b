// Waiting for something that happens on its own time (a file watcher's poll, another process' exit): polls
// a condition until it holds, failing with `what` after `timeoutMs`. Not a sleep: it returns as soon as the
// condition holds.

export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
