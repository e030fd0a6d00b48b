// The wake-up count of bench/ttfb-strace.ts: per request, the epoll waits strace saw between the client's request
// read and the upstream request written, until the upstream's answer is read, and until the client's answer is
// written.

import { describe, expect, it } from "vitest";
import { waitsOnThePath } from "../../bench/ttfb-strace.js";

const ONE_REQUEST = [
  "accept4(18, NULL, NULL, SOCK_CLOEXEC|SOCK_NONBLOCK) = 20",
  "epoll_pwait(13, [{events=EPOLLIN, data={u32=20, u64=20}}], 1024, 0, NULL, 8) = 1",
  'read(20, "POST /v1/chat/completions HTTP/1"..., 65536) = 331',
  'writev(40, [{iov_base="POST /v1/chat/completions HTTP/1"..., iov_len=305}], 3) = 441',
  "epoll_pwait(13, [], 1024, 0, NULL, 8) = 0",
  "epoll_pwait(13, [{events=EPOLLIN, data={u32=40, u64=40}}], 1024, 7, NULL, 8) = 1",
  'read(40, "HTTP/1.1 200 OK\\r\\ncontent-type: t"..., 65536) = 3527',
  'writev(20, [{iov_base="HTTP/1.1 200 OK\\r\\nx-request-id: 0"..., iov_len=243}], 76) = 3386',
  'write(20, "0\\r\\n\\r\\n", 5) = 5',
  "epoll_pwait(13, [{events=EPOLLIN|EPOLLERR|EPOLLHUP, data={u32=20, u64=20}}], 1024, 0, NULL, 8) = 1",
];

describe("waitsOnThePath", () => {
  it("counts the waits in each part of each request, and none after the client's answer", () => {
    const trace = [...ONE_REQUEST, ...ONE_REQUEST].join("\n");
    expect(waitsOnThePath(trace)).toEqual([
      [0, 2, 0],
      [0, 2, 0],
    ]);
  });

  it("counts a wait between the request's read and the upstream's write", () => {
    const lines = [...ONE_REQUEST];
    lines.splice(3, 0, "epoll_pwait(13, [], 1024, 0, NULL, 8) = 0");
    expect(waitsOnThePath(lines.join("\n"))).toEqual([[1, 2, 0]]);
  });
});
