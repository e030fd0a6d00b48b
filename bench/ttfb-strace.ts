// The event-loop waits a request pays on its way to the first byte, counted from strace: a proxy's main thread
// traced (its I/O system calls and epoll waits) while some requests run one at a time, then, per request, the
// waits between the client's request read and the upstream request written, until the upstream's answer is
// read, and until the client's answer is written. Used by bench/ttfb-stages.ts with TTFB_STRACE.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";

/** Traces `pid`'s main thread into `file` while `run` runs; per request, the waits in each of the three parts. */
export async function waitsWhile(
  pid: number,
  file: string,
  run: () => Promise<unknown>,
): Promise<[number, number, number][]> {
  const strace = spawn("strace", ["-p", String(pid), "-tt", "-T", "-o", file, "-e", "trace=desc,network"], {
    stdio: "ignore",
  });
  // strace says nothing once it has attached: give it time to.
  await new Promise((resolve) => setTimeout(resolve, 500));
  await run();
  await new Promise((resolve) => setTimeout(resolve, 200));
  strace.kill("SIGINT");
  await once(strace, "exit");
  return waitsOnThePath(readFileSync(file, "utf8"));
}

/**
 * From a proxy's strace, per request, the event-loop waits (epoll_wait calls) between the client's request
 * read and the upstream request written, until the upstream's answer is read, and until the client's answer
 * is written: a wait between two of them is a wake-up the request paid for.
 */
export function waitsOnThePath(trace: string): [number, number, number][] {
  const marks = [
    /read\(\d+, "POST /,
    /writev?\(\d+, \[?\{?(iov_base=)?"POST /,
    /read\(\d+, "HTTP\/1.1 /,
    /writev?\(\d+, \[?\{?(iov_base=)?"HTTP\/1.1 /,
  ];
  const requests: [number, number, number][] = [];
  let step = -1;
  let counts: [number, number, number] = [0, 0, 0];
  for (const line of trace.split("\n")) {
    if (marks[0]?.test(line)) {
      step = 0;
      counts = [0, 0, 0];
    } else if (step >= 0 && step < 3 && marks[step + 1]?.test(line)) {
      step++;
      if (step === 3) requests.push(counts);
    } else if (step >= 0 && step < 3 && /epoll_p?wait\(/.test(line)) counts[step as 0 | 1 | 2]++;
  }
  return requests;
}
