// Remote OpenAI-compatible providers for the latency benchmark, from flags or the environment:
//   --remote "https://api.openai.com/v1,gpt-4o-mini,OPENAI_API_KEY"     (base URL, model, name of the key's variable)
//   TESSERA_BENCH_REMOTES="http://gpu-box:8000/v1,meta-llama/Llama-3.2-1B http://localhost:11434/v1,llama3.2"
// The key itself is read from the named variable, never from the command line (it would show in `ps`).
import { BenchHttpClient } from "./bench-http-client.js";
import { InvalidRemoteSpecError } from "./errors/invalid-remote-spec-error.js";
import { redactedUrl } from "./redact-url-credentials.js";
import { runDeadline } from "./run-deadline.js";
import { OpenAIHttpTarget } from "./targets/openai-http-target.js";

export interface RemoteSpec {
  name: string;
  baseUrl: string;
  model: string;
  apiKey?: string;
}

export function parseRemoteSpec(spec: string, environment: NodeJS.ProcessEnv = process.env): RemoteSpec {
  const [baseUrl = "", model = "", keyVariable, ...rest] = spec.split(",").map((part) => part.trim());
  if (rest.length > 0 || baseUrl === "" || model === "")
    throw new InvalidRemoteSpecError(spec, "expected <base URL>,<model>[,<API key variable>]");
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    // Not quoted: cut at a comma, a password's first part would be all the message shows of it.
    throw new InvalidRemoteSpecError(spec, "its base URL (up to the first comma) is not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new InvalidRemoteSpecError(spec, "only http(s) URLs are supported");
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    throw new InvalidRemoteSpecError(spec, "the URL's user or password has a malformed % escape");
  }
  let apiKey: string | undefined;
  if (keyVariable !== undefined && keyVariable !== "") {
    apiKey = environment[keyVariable];
    if (apiKey === undefined || apiKey === "")
      throw new InvalidRemoteSpecError(spec, `the variable ${keyVariable} is not set`);
  }
  return { name: `${url.host} ${model}`, baseUrl, model, ...(apiKey !== undefined && { apiKey }) };
}

/** Specs from the flags plus $TESSERA_BENCH_REMOTES (space-separated). */
export function remoteSpecs(
  flags: ReadonlyArray<string>,
  environment: NodeJS.ProcessEnv = process.env,
): RemoteSpec[] {
  const fromEnvironment = (environment.TESSERA_BENCH_REMOTES ?? "")
    .split(/\s+/)
    .filter((part) => part !== "");
  return [...flags, ...fromEnvironment].map((spec) => parseRemoteSpec(spec, environment));
}

export function remoteTarget(spec: RemoteSpec, options: { newConnections?: boolean } = {}): OpenAIHttpTarget {
  return new OpenAIHttpTarget({
    newConnections: options.newConnections === true,
    name: `remote: ${spec.name}`,
    baseUrl: spec.baseUrl,
    model: spec.model,
    ...(spec.apiKey !== undefined && { apiKey: spec.apiKey }),
    prepare: async (signal) => {
      // One request up front so that an unreachable or misconfigured provider skips its row with a reason.
      // The rows' own client: a redirect is named rather than followed (fetch followed it here and then
      // measured a different URL), and an error body is read only as far as a message needs.
      const url = `${spec.baseUrl.replace(/\/+$/, "")}/models`;
      const client = new BenchHttpClient();
      const deadline = runDeadline(15_000, signal);
      try {
        const response = await client
          .request({
            method: "GET",
            url,
            headers: spec.apiKey ? { authorization: `Bearer ${spec.apiKey}` } : {},
            signal: deadline.signal,
          })
          .catch((error: unknown) => {
            throw new Error(
              `cannot reach ${redactedUrl(spec.baseUrl)}: ${error instanceof Error ? error.message : String(error)}`,
            );
          });
        await BenchHttpClient.text(response);
        const status = response.statusCode ?? 0;
        if (status === 401 || status === 403) throw new Error(`HTTP ${status}: check the API key`);
        if (status >= 300 && status < 400) {
          throw new Error(`${BenchHttpClient.describeStatus(response, url)}: give the base URL it points to`);
        }
      } finally {
        deadline.clear();
        client.close();
      }
    },
  });
}
