import { describe, expect, it } from "vitest";
import { inspectRequest } from "../../src/proxy/request-facts.js";

function multipart(fields: Record<string, string>, file = true): { body: Buffer; type: string } {
  const boundary = "----tunnelboundary";
  let text = "";
  for (const [name, value] of Object.entries(fields)) {
    text += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  }
  if (file) {
    text += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF....\r\n`;
  }
  text += `--${boundary}--\r\n`;
  return { body: Buffer.from(text), type: `multipart/form-data; boundary=${boundary}` };
}

describe("inspectRequest", () => {
  it("reads model, output cap, choices and stream from a JSON body", async () => {
    const body = Buffer.from(JSON.stringify({ model: "m", max_tokens: 50, n: 3, stream: true }));
    expect(await inspectRequest(body, "application/json")).toMatchObject({
      model: { kind: "named", model: "m" },
      maxOutputTokens: 50,
      choices: 3,
      stream: true,
    });
  });

  it("takes the largest of max_completion_tokens, max_tokens and max_output_tokens", async () => {
    const facts = async (body: object) =>
      (await inspectRequest(Buffer.from(JSON.stringify(body)), "application/json")).maxOutputTokens;
    // TGI and llama.cpp read only max_tokens, vLLM prefers max_completion_tokens: either may apply.
    expect(await facts({ max_completion_tokens: 5, max_tokens: 9 })).toBe(9);
    expect(await facts({ max_completion_tokens: 1, max_tokens: 100_000 })).toBe(100_000);
    expect(await facts({ max_tokens: 9, max_output_tokens: 70 })).toBe(70);
    expect(await facts({ max_output_tokens: 7 })).toBe(7);
    expect(await facts({ max_tokens: -1 })).toBeNull();
    expect(await facts({ max_tokens: 1.5 })).toBeNull();
    // Pydantic-based servers coerce numeric strings, so the gateway reads them the same way.
    expect(await facts({ max_tokens: "9" })).toBe(9);
  });

  it("tells whether the body sets an output cap at all (null counts as unset, as model servers read it)", async () => {
    const capSet = async (body: object) =>
      (await inspectRequest(Buffer.from(JSON.stringify(body)), "application/json")).outputCapSet;
    expect(await capSet({ model: "m" })).toBe(false);
    expect(await capSet({ model: "m", max_tokens: null })).toBe(false);
    expect(await capSet({ model: "m", max_tokens: 9 })).toBe(true);
    expect(await capSet({ model: "m", max_output_tokens: 9 })).toBe(true);
    // Set but invalid: the upstream refuses it, so the gateway does not overwrite it.
    expect(await capSet({ model: "m", max_completion_tokens: -1 })).toBe(true);
  });

  it("reports no body, and a body whose model cannot be determined", async () => {
    expect((await inspectRequest(Buffer.alloc(0), undefined)).model).toEqual({ kind: "none" });
    for (const body of ['{"messages":[]}', '{"model": 5}', '{"model": ""}', "[1,2]", "not json", '"m"']) {
      expect((await inspectRequest(Buffer.from(body), "application/json")).model).toEqual({
        kind: "unknown",
      });
    }
  });

  it("reads JSON whatever the content type says, as FastAPI-based servers do", async () => {
    expect((await inspectRequest(Buffer.from('{"model":"m"}'), "text/plain")).model).toEqual({
      kind: "named",
      model: "m",
    });
  });

  it("reads the model field of a multipart upload, skipping the file", async () => {
    const { body, type } = multipart({ model: "whisper-1", response_format: "json" });
    expect((await inspectRequest(body, type)).model).toEqual({ kind: "named", model: "whisper-1" });
    const without = multipart({ language: "ru" });
    expect((await inspectRequest(without.body, without.type)).model).toEqual({ kind: "unknown" });
  });

  it("treats a broken multipart body as having no model", async () => {
    expect((await inspectRequest(Buffer.from("garbage"), "multipart/form-data; boundary=x")).model).toEqual({
      kind: "unknown",
    });
    expect((await inspectRequest(Buffer.from("garbage"), "multipart/form-data")).model).toEqual({
      kind: "unknown",
    });
  });

  it("reads a urlencoded form", async () => {
    expect(
      await inspectRequest(Buffer.from("model=m&max_tokens=5"), "application/x-www-form-urlencoded"),
    ).toMatchObject({
      model: { kind: "named", model: "m" },
      maxOutputTokens: 5,
    });
  });
});
