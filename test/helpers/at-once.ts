// "At once", measured without a clock: a promise settles at once if it settles before the event loop's next
// turn, that is without waiting for any timer, I/O or event — what code that must not wait for events that will
// never come (a destroyed request's, an empty tracker's) promises.

/** Whether `promise` settled (either way) before the next turn of the event loop. */
export async function settlesAtOnce(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  const mark = () => {
    settled = true;
  };
  promise.then(mark, mark);
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}
