import { describe, expect, it } from "vitest";
import { EndpointTable } from "../../../src/proxy/request/endpoints.js";
import { inspectRequest } from "../../../src/proxy/request/request-facts.js";

const table = new EndpointTable();
const CHAT = table.classify("POST", "/v1/chat/completions");
const LIMITS = { maxJsonDepth: 16, maxChoices: 8 };

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

const inspect = (body: unknown, path = "/v1/chat/completions", type = "application/json") =>
  inspectRequest(
    Buffer.isBuffer(body) ? body : Buffer.from(typeof body === "string" ? body : JSON.stringify(body)),
    type,
    table.classify("POST", path),
    LIMITS,
  );

async function refusal(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "accepted",
    (error: { code?: string; message: string }) => `${error.code}: ${error.message}`,
  );
}

describe("inspectRequest", () => {
  it("reads model, output cap, choices and stream from a JSON body", async () => {
    expect(await inspect({ model: "m", max_tokens: 50, n: 3, stream: true })).toMatchObject({
      model: { kind: "named", model: "m" },
      maxOutputTokens: 50,
      capsSet: [["max_tokens"]],
      choices: 3,
      stream: true,
      asksForUsage: false,
    });
    expect((await inspect({ stream: true, stream_options: { include_usage: true } })).asksForUsage).toBe(
      true,
    );
  });

  it("takes the largest cap among the fields the endpoint's servers read", async () => {
    const cap = async (body: object, path?: string) => (await inspect(body, path)).maxOutputTokens;
    // vLLM prefers max_completion_tokens, TGI reads max_tokens, llama.cpp n_predict first: any may apply.
    expect(await cap({ max_completion_tokens: 5, max_tokens: 9 })).toBe(9);
    expect(await cap({ max_completion_tokens: 1, max_tokens: 100_000 })).toBe(100_000);
    expect(await cap({ max_tokens: 9, n_predict: 70 })).toBe(70);
    expect(await cap({ max_output_tokens: 7 }, "/v1/responses")).toBe(7);
    expect(await cap({ options: { num_predict: 12 } }, "/api/chat")).toBe(12);
    expect(await cap({ parameters: { max_new_tokens: 20 } }, "/generate")).toBe(20);
    // null is how OpenAI's API spells "no cap".
    expect(await cap({ max_tokens: null })).toBeNull();
  });

  it("refuses a cap that is not a positive whole number a model server reads as a limit, naming the field", async () => {
    for (const [value, shown] of [
      [-1, "-1"],
      [0, "0"],
      [1.5, "1.5"],
      [1e300, "1e+300"],
      [2_147_483_648, "2147483648"],
      ["lots", '"lots"'],
      ["9", '"9"'],
      [true, "true"],
      [{}, "{}"],
    ] as const) {
      expect(await refusal(inspect({ model: "m", max_tokens: value }))).toBe(
        `invalid_request: max_tokens must be a whole number from 1 to 2147483647; got ${shown}.`,
      );
    }
    expect(await refusal(inspect({ options: { num_predict: -1 } }, "/api/generate"))).toMatch(
      /^invalid_request: options\.num_predict must be a whole number from 1 to 2147483647; got -1\.$/,
    );
    expect(await refusal(inspect({ max_output_tokens: -2 }, "/v1/responses"))).toMatch(/max_output_tokens/);
  });

  it("refuses n and best_of that are not from 1 to limits.maxChoices", async () => {
    expect(await refusal(inspect({ n: 9 }))).toBe(
      "invalid_request: n must be a whole number from 1 to 8; got 9.",
    );
    expect(await refusal(inspect({ n: 0 }))).toMatch(/^invalid_request: n must/);
    expect(await refusal(inspect({ best_of: 2.5 }, "/v1/completions"))).toMatch(/^invalid_request: best_of/);
    expect((await inspect({ n: 2, best_of: 5 }, "/v1/completions")).choices).toBe(5);
  });

  it("reads an unknown endpoint's caps without judging them, and checks none on an input-only one", async () => {
    expect((await inspect({ max_tokens: 300 }, "/v1/unknown")).maxOutputTokens).toBe(300);
    expect((await inspect({ max_tokens: -1 }, "/v1/unknown")).maxOutputTokens).toBeNull();
    expect((await inspect({ max_tokens: -1 }, "/v1/embeddings")).maxOutputTokens).toBeNull();
  });

  it("refuses a body nested deeper than limits.maxJsonDepth before parsing it", async () => {
    const deep = `${"[".repeat(17)}${"]".repeat(17)}`;
    expect(await refusal(inspect(`{"model":"m","x":${deep}}`))).toBe(
      "invalid_request: The request body nests deeper than 16 levels, the most the gateway accepts.",
    );
    expect((await inspect(`{"model":"m","x":${"[".repeat(14)}${"]".repeat(14)}}`)).model).toEqual({
      kind: "named",
      model: "m",
    });
  });

  it("sizes a generation's prompt by its text bytes and its media parts by kind", async () => {
    const image = "data:image/png;base64,".padEnd(10_000, "A");
    const body = {
      model: "m",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "what is this?" },
            { type: "image_url", image_url: { url: image } },
            { type: "input_audio", input_audio: { data: "UklGR".padEnd(5000, "A"), format: "wav" } },
          ],
        },
      ],
    };
    const bytes = Buffer.byteLength(JSON.stringify(body));
    const { prompt } = await inspect(body);
    expect(prompt).toEqual({
      textBytes: bytes - 10_000 - 5000 - "wav".length,
      images: 1,
      audio: 1,
      video: 0,
    });
    // Anthropic's image blocks, and Ollama's images list.
    const anthropic = await inspect(
      {
        messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", data: "AAAA" } }] }],
      },
      "/v1/messages",
    );
    expect(anthropic.prompt.images).toBe(1);
    const ollama = await inspect({ model: "m", prompt: "hi", images: ["AAAA", "BBBB"] }, "/api/generate");
    expect(ollama.prompt.images).toBe(2);
  });

  it("reports no body, and a body whose model cannot be determined", async () => {
    expect((await inspectRequest(Buffer.alloc(0), undefined, CHAT, LIMITS)).model).toEqual({ kind: "none" });
    for (const body of ['{"messages":[]}', '{"model": 5}', '{"model": ""}', "[1,2]", '"m"']) {
      expect((await inspect(body)).model).toEqual({ kind: "unknown" });
    }
  });

  it("refuses a body that is not valid JSON on an endpoint that takes JSON, naming the problem", async () => {
    const cut = '{"model":"m","messages":[{"role":"user","content":"hel';
    expect(await refusal(inspect(cut))).toBe(
      "invalid_request: The request body is not valid JSON: it ends before the JSON text does (was it cut short?).",
    );
    expect(await refusal(inspect('{"model":"m"}x'))).toBe(
      "invalid_request: The request body is not valid JSON: the error is at character 13.",
    );
    // V8's message quotes the body; the refusal does not, as a body may hold secrets.
    const secret = await refusal(inspect("sk-tunnel-secret", "/v1/embeddings", "text/plain"));
    expect(secret).toBe(
      "invalid_request: The request body is not valid JSON: it has an unexpected character.",
    );
    for (const path of ["/v1/completions", "/api/chat", "/tokenize", "/v1/rerank"]) {
      expect(await refusal(inspect("{", path))).toMatch(
        /^invalid_request: The request body is not valid JSON/,
      );
    }
  });

  it("leaves an unknown endpoint's body alone unless its content type says JSON", async () => {
    expect((await inspect("not json", "/v1/unknown", "application/octet-stream")).model).toEqual({
      kind: "unknown",
    });
    expect(await refusal(inspect("not json", "/v1/unknown", "application/json"))).toMatch(
      /^invalid_request: The request body is not valid JSON/,
    );
    expect(await refusal(inspect("{", "/v1/unknown", "application/vnd.api+json"))).toMatch(/not valid JSON/);
  });

  it("reads JSON whatever the content type says, as FastAPI-based servers do", async () => {
    expect((await inspect('{"model":"m"}', undefined, "text/plain")).model).toEqual({
      kind: "named",
      model: "m",
    });
  });

  it("reads the model field of a multipart upload, and sizes the file as an audio part", async () => {
    const { body, type } = multipart({ model: "whisper-1", response_format: "json" });
    const facts = await inspectRequest(
      body,
      type,
      table.classify("POST", "/v1/audio/transcriptions"),
      LIMITS,
    );
    expect(facts.model).toEqual({ kind: "named", model: "whisper-1" });
    expect(facts.prompt).toEqual({
      textBytes: body.length - "RIFF....".length,
      images: 0,
      audio: 1,
      video: 0,
    });
    const without = multipart({ language: "ru" });
    expect((await inspectRequest(without.body, without.type, CHAT, LIMITS)).model).toEqual({
      kind: "unknown",
    });
  });

  it("refuses a multipart body that is not a valid form, a part cut short included", async () => {
    const transcriptions = table.classify("POST", "/v1/audio/transcriptions");
    const { body, type } = multipart({ model: "whisper-1" });
    const cases: [Buffer, string][] = [
      [Buffer.from("garbage"), "multipart/form-data; boundary=x"],
      [Buffer.from("garbage"), "multipart/form-data"],
      // Cut inside the file's content: the part's stream errs as well as the parser.
      [body.subarray(0, body.length - 30), type],
      [body.subarray(0, 60), type],
    ];
    for (const [bytes, contentType] of cases) {
      expect(await refusal(inspectRequest(bytes, contentType, transcriptions, LIMITS))).toMatch(
        /^invalid_request: The request body is not a valid multipart form: \S/,
      );
    }
  });

  it("reads a urlencoded form, whose numbers are text", async () => {
    const form = (text: string) =>
      inspectRequest(Buffer.from(text), "application/x-www-form-urlencoded", CHAT, LIMITS);
    expect(await form("model=m&max_tokens=5")).toMatchObject({
      model: { kind: "named", model: "m" },
      maxOutputTokens: 5,
    });
    expect(await refusal(form("model=m&max_tokens=-5"))).toMatch(/^invalid_request: max_tokens must/);
  });
});
