// tessera serve refuses what OpenAI refuses, with OpenAI-shaped bodies whose messages speak in request
// fields (real HTTP on 127.0.0.1; the scripted backend only supplies answers).
import { connect } from "node:net";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { InvalidOptionError } from "../../src/backends/llamacpp/errors/invalid-option-error.js";
import { ContextOverflowError } from "../../src/core/errors/context-overflow-error.js";
import { InvalidModelOptionError } from "../../src/core/errors/invalid-model-option-error.js";
import { closeServersAfterEach, hello, serve } from "./scripted-server.js";

closeServersAfterEach();

type ErrorBody = { error: { message: string; type: string; param: string | null; code: string | null } };

async function post(url: string, body: string, contentType = "application/json") {
  const response = await fetch(url, { method: "POST", headers: { "content-type": contentType }, body });
  return { status: response.status, headers: response.headers, body: (await response.json()) as ErrorBody };
}

/** No library API names or framework internals in a message meant for HTTP clients. */
function expectHttpTerms(body: ErrorBody): void {
  expect(body.error.message).not.toMatch(/FST_|ImageBlock|fromImage|contextSize|maxTokens|maxNewTokens/);
  expect(body.error.code ?? "").not.toMatch(/^FST_/);
}

describe("the model field", () => {
  it("answers 404 model_not_found for a model the server does not serve", async () => {
    const { client } = await serve(["unused"]);
    const error = await client.chat.completions
      .create({ model: "gpt-4o", messages: hello })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const notFound = error as InstanceType<typeof OpenAI.NotFoundError>;
    expect(notFound.code).toBe("model_not_found");
    expect(notFound.param).toBe("model");
    expect(notFound.message).toContain("gpt-4o");
    expect(notFound.message).toContain("scripted-model");
    const legacy = await client.completions
      .create({ model: "gpt-3.5-turbo-instruct", prompt: "Once" })
      .catch((caught: unknown) => caught);
    expect((legacy as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
  });

  it("accepts the names the server was given as aliases, and lists them", async () => {
    const { client } = await serve(["Hi", "Hello"], { aliases: ["gpt-4o", "gpt-4o-mini"] });
    const completion = await client.chat.completions.create({ model: "gpt-4o", messages: hello });
    expect(completion.choices[0]!.message.content).toBe("Hi");
    const again = await client.chat.completions.create({ model: "scripted-model", messages: hello });
    expect(again.choices[0]!.message.content).toBe("Hello");
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(["scripted-model", "gpt-4o", "gpt-4o-mini"]);
    expect((await client.models.retrieve("gpt-4o")).id).toBe("gpt-4o");
    const missing = await client.models.retrieve("gpt-5").catch((caught: unknown) => caught);
    expect((missing as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
  });
});

describe("field combinations OpenAI refuses", () => {
  it("refuses top_logprobs without logprobs", async () => {
    const { client } = await serve(["unused"]);
    const error = await client.chat.completions
      .create({ model: "scripted-model", messages: hello, top_logprobs: 3 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.param).toBe("top_logprobs");
    expect(bad.message).toMatch(/logprobs/);
  });
});

describe("framework refusals", () => {
  it("says the body is not valid JSON, without Fastify's codes", async () => {
    const { server } = await serve(["unused"]);
    const broken = await post(`${server.url}/v1/chat/completions`, "{not json");
    expect(broken.status).toBe(400);
    expect(broken.body.error.type).toBe("invalid_request_error");
    expect(broken.body.error.message).toMatch(/JSON/);
    expectHttpTerms(broken.body);
    const empty = await post(`${server.url}/v1/chat/completions`, "");
    expect(empty.status).toBe(400);
    expectHttpTerms(empty.body);
  });

  it("answers 415 naming application/json", async () => {
    const { server } = await serve(["unused"]);
    const plain = await post(`${server.url}/v1/chat/completions`, "hello", "text/plain");
    expect(plain.status).toBe(415);
    expect(plain.body.error.message).toContain("application/json");
    expectHttpTerms(plain.body);
  });

  it("answers 413 with the limit, without Fastify's codes", async () => {
    const { server } = await serve(["unused"], { maxBodyBytes: 1024 });
    const huge = await post(
      `${server.url}/v1/chat/completions`,
      JSON.stringify({ messages: [{ role: "user", content: "x".repeat(4096) }] }),
    );
    expect(huge.status).toBe(413);
    expect(huge.body.error.message).toContain("1024");
    expectHttpTerms(huge.body);
  });

  it("answers a GET on a POST route with 405 and an Allow header", async () => {
    const { server } = await serve(["unused"]);
    for (const path of ["/v1/chat/completions", "/v1/completions"]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      const body = (await response.json()) as ErrorBody;
      expect(body.error.message).toContain("POST");
      expect(body.error.message).not.toContain("Try");
      expectHttpTerms(body);
    }
    const models = await fetch(`${server.url}/v1/models`, { method: "POST" });
    expect(models.status).toBe(405);
    expect(models.headers.get("allow")).toMatch(/GET/);
    const unknown = await fetch(`${server.url}/v1/nothing`);
    expect(unknown.status).toBe(404);
  });
});

describe("messages in request fields", () => {
  it("names the content part and what to send for a bad image", async () => {
    const { server } = await serve(["unused"]);
    const notPng = `data:image/png;base64,${Buffer.from("GIF89a not a png at all, really").toString("base64")}`;
    const bad = await post(
      `${server.url}/v1/chat/completions`,
      JSON.stringify({
        model: "scripted-model",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is it?" },
              { type: "image_url", image_url: { url: notPng } },
            ],
          },
        ],
      }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("messages[0].content[1].image_url.url");
    expect(bad.body.error.message).toContain("messages[0].content[1].image_url.url");
    expect(bad.body.error.message).toContain("data:image/png;base64,");
    expectHttpTerms(bad.body);
  });

  it("states a context overflow in messages and max_tokens", async () => {
    const { client } = await serve([{ text: "", throwOnCall: new ContextOverflowError(9000, 2048, 10) }]);
    const error = await client.chat.completions
      .create({ model: "scripted-model", messages: hello, max_tokens: 10 })
      .catch((caught: unknown) => caught);
    const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.code).toBe("context_length_exceeded");
    expect(bad.message).toContain("max_tokens");
    expect(bad.message).toContain("2048");
    expect(bad.message).not.toMatch(/contextSize|maxTokens/);
  });

  it("names the request field of a refused sampler option", async () => {
    const { client } = await serve([
      { text: "", throwOnCall: new InvalidOptionError("topP", "a number in (0, 1]", 7) },
    ]);
    const error = await client.chat.completions
      .create({ model: "scripted-model", messages: hello })
      .catch((caught: unknown) => caught);
    const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.param).toBe("top_p");
    expect(bad.message).toContain("top_p");
    expect(bad.message).not.toContain("topP");
  });
});

// Review findings on issue 15: refusals that leaked Fastify's or Node's bodies, or library wording.
describe("no framework internals or library wording", () => {
  it("answers a malformed URL escape with an OpenAI-shaped 400", async () => {
    const { server } = await serve(["unused"]);
    const response = await fetch(`${server.url}/%zz`);
    const body = (await response.json()) as ErrorBody;
    expect(response.status).toBe(400);
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toMatch(/percent/i);
    expectHttpTerms(body);
  });

  it("accepts valid JSON with a __proto__ key and ignores that key, as OpenAI does", async () => {
    const { server } = await serve(["Hello"]);
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "scripted-model", messages: hello }).replace(
        "{",
        '{"__proto__":{"a":1},',
      ),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]!.message.content).toBe("Hello");
  });

  it("answers a request Node's parser refuses (both Transfer-Encoding and Content-Length) in OpenAI's shape", async () => {
    const { server } = await serve(["unused"]);
    const { port } = new URL(server.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(
          "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
            "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        );
      });
      let text = "";
      socket.on("data", (data) => {
        text += data.toString();
      });
      socket.on("end", () => resolve(text));
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    const body = JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)) as ErrorBody;
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).not.toBe("Client Error");
    expectHttpTerms(body);
  });

  it("names the request field seed, not the library's model option", async () => {
    const { client } = await serve([
      {
        text: "",
        throwOnCall: new InvalidModelOptionError("seed", -1, "a whole number from 0 to 4294967294"),
      },
    ]);
    const error = await client.chat.completions
      .create({ model: "scripted-model", messages: hello, seed: -1 })
      .catch((caught: unknown) => caught);
    const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.status).toBe(400);
    expect(bad.param).toBe("seed");
    expect(bad.message).toContain('"seed"');
    expect(bad.message).not.toMatch(/model option/);
  });
});

describe("fields OpenAI requires or limits", () => {
  it("refuses a request without model, naming model", async () => {
    const { server } = await serve(["unused"]);
    const answer = await post(`${server.url}/v1/chat/completions`, JSON.stringify({ messages: hello }));
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe("model");
    const legacy = await post(`${server.url}/v1/completions`, JSON.stringify({ prompt: "Hi" }));
    expect(legacy.status).toBe(400);
    expect(legacy.body.error.param).toBe("model");
  });

  it("refuses more than 4 stop strings, naming stop", async () => {
    const { server } = await serve(["unused"]);
    const stop = ["a", "b", "c", "d", "e"];
    const answer = await post(
      `${server.url}/v1/chat/completions`,
      JSON.stringify({ model: "scripted-model", messages: hello, stop }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe("stop");
    expect(answer.body.error.message).toMatch(/4/);
  });
});

describe("the legacy completions prompt", () => {
  it("names prompt, and says what to send, for token-id and multiple prompts", async () => {
    const { server } = await serve(["unused"]);
    const url = server.url;
    const tokenIds = await post(
      `${url}/v1/completions`,
      JSON.stringify({ model: "scripted-model", prompt: [1, 2, 3] }),
    );
    expect(tokenIds.status).toBe(400);
    expect(tokenIds.body.error.param).toBe("prompt");
    expect(tokenIds.body.error.message).toMatch(/token ids/);
    expect(tokenIds.body.error.message).toMatch(/text/);
    const nested = await post(
      `${url}/v1/completions`,
      JSON.stringify({ model: "scripted-model", prompt: [[1, 2]] }),
    );
    expect(nested.status).toBe(400);
    expect(nested.body.error.param).toBe("prompt");
    expect(nested.body.error.message).toMatch(/token ids/);
    const two = await post(
      `${url}/v1/completions`,
      JSON.stringify({ model: "scripted-model", prompt: ["a", "b"] }),
    );
    expect(two.status).toBe(400);
    expect(two.body.error.param).toBe("prompt");
    expect(two.body.error.message).toMatch(/one text per request/);
    expectHttpTerms(tokenIds.body);
  });

  it("tells apart a missing prompt, an empty array and values that are not text", async () => {
    const { server } = await serve(["unused"]);
    const cases: Array<[unknown, RegExp]> = [
      [undefined, /^prompt: required: the text to continue/],
      [[], /^prompt: an empty array holds no text: send the text as a string$/],
      [[null], /item 0 is null: send the text as a string$/],
      [[true], /item 0 is a boolean/],
      [["a", 1], /item 1 is a number/],
      [[1.5], /item 0 is a number/],
      [[-1], /item 0 is a number/],
      [[1e300], /item 0 is a number/],
      [[["a"]], /item 0 is an array/],
      [
        { a: 1 },
        /^prompt: expected text, as a string \(or an array holding one string\), but got an object$/,
      ],
      [5, /but got a number$/],
      [null, /but got null$/],
      [["a", "b", "c"], /one text per request is supported, and this array holds 3: send one string/],
    ];
    for (const [prompt, message] of cases) {
      const answer = await post(
        `${server.url}/v1/completions`,
        JSON.stringify({ model: "scripted-model", prompt }),
      );
      expect(answer.status, JSON.stringify(prompt)).toBe(400);
      expect(answer.body.error.param).toBe("prompt");
      expect(answer.body.error.message, JSON.stringify(prompt)).toMatch(message);
      // Token ids are named only where token ids were sent.
      expect(answer.body.error.message).not.toMatch(/token ids/);
      // The field is named once, by the 400's prefix.
      expect(answer.body.error.message).not.toMatch(/^prompt: .*\bprompt\b/);
    }
  });

  it("refuses suffix (insertion) instead of ignoring it, and takes a null one", async () => {
    const { server } = await serve(["Hi", "Hi"]);
    const url = server.url;
    const refused = await post(
      `${url}/v1/completions`,
      JSON.stringify({ model: "scripted-model", prompt: "def f(", suffix: "return x" }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe("suffix");
    expect(refused.body.error.message).toMatch(/not supported/);
    const nullSuffix = await fetch(`${url}/v1/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "scripted-model", prompt: "Once", suffix: null }),
    });
    expect(nullSuffix.status).toBe(200);
    // The field is named once, by param and at the start of the message.
    expect(refused.body.error.message).toBe(
      "suffix: insertion after the completion is not supported: leave it out, or send null or an empty string",
    );
    const notText = await post(
      `${url}/v1/completions`,
      JSON.stringify({ model: "scripted-model", prompt: "Once", suffix: 5 }),
    );
    expect(notText.body.error.param).toBe("suffix");
    expect(notText.body.error.message).toMatch(/expected null or an empty string .* but got a number$/);
  });

  it("takes an empty suffix as no insertion", async () => {
    const { server } = await serve(["Hi"]);
    const answer = await post(
      `${server.url}/v1/completions`,
      JSON.stringify({ model: "scripted-model", prompt: "Once", suffix: "" }),
    );
    expect(answer.status).toBe(200);
  });
});

describe("the chat messages field", () => {
  it("says a missing or wrong messages field is one, in the request's terms", async () => {
    const { server } = await serve(["unused"]);
    const missing = await post(
      `${server.url}/v1/chat/completions`,
      JSON.stringify({ model: "scripted-model" }),
    );
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe("messages");
    expect(missing.body.error.message).toMatch(
      /^messages: required: the conversation, as an array of messages/,
    );
    const text = await post(
      `${server.url}/v1/chat/completions`,
      JSON.stringify({ model: "scripted-model", messages: "Hi" }),
    );
    expect(text.body.error.param).toBe("messages");
    expect(text.body.error.message).toMatch(/expected an array of messages .* but got a string$/);
    const bare = await post(
      `${server.url}/v1/chat/completions`,
      JSON.stringify({ model: "scripted-model", messages: ["hi"] }),
    );
    expect(bare.body.error.param).toBe("messages[0]");
    expect(bare.body.error.message).toMatch(
      /expected a message object \(\{ role, content \}\), but got a string$/,
    );
    const empty = await post(
      `${server.url}/v1/chat/completions`,
      JSON.stringify({ model: "scripted-model", messages: [] }),
    );
    expect(empty.body.error.message).toMatch(/at least one message is required/);
  });
});
