// Where a served request's first token went, for `tessera bench ttfb`: request parsing and handling up to
// the backend call, the generation's own stages (GenerationMetadata.timings), and the first write to the
// socket. Off unless the server is started with `firstTokenTimings` (TESSERA_SERVE_TIMINGS=1 for `tessera
// serve`), and then recorded only for requests that carry an `x-tessera-timing-id` header; the figures
// are read back from GET /debug/first-token/<id> once the response has ended.
//
// Everything here hooks around the routes (Fastify hooks, a wrapper of the backend, the raw response's
// write), so the routes and the streaming code need no change.
import { AsyncLocalStorage } from "node:async_hooks";
import type { ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";
import {
  type ServedFirstTokenTimings,
  timingIdHeader,
} from "../backends/openai/served-first-token-timings.js";
import type { Backend } from "../core/backend.js";
import type { ModelOutputThunk } from "../core/model-output-thunk.js";

// Tests and older importers read the record type from here.
export type { ServedFirstTokenTimings };

interface RequestMarks {
  id: string;
  arrivedAt: number;
  generateAt?: number;
  firstWriteAt?: number;
  thunk?: ModelOutputThunk<unknown>;
}

/** Bounded: a benchmark reads each id right after its response; old ones are dropped first. */
const keptResults = 1024;

function stagesOf(marks: RequestMarks): ServedFirstTokenTimings | null {
  const { generateAt, firstWriteAt, thunk } = marks;
  const timings = thunk?.generation.timings;
  const ttfbMs = thunk?.generation.ttfbMs;
  if (generateAt === undefined || firstWriteAt === undefined || !timings || typeof ttfbMs !== "number")
    return null;
  const stages = [
    timings.setupMs,
    timings.templateMs,
    timings.tokenizeMs,
    timings.queueWaitMs,
    timings.prefillMs,
    timings.firstDeliveryMs,
  ];
  if (!stages.every((value) => typeof value === "number")) return null;
  return {
    requestMs: generateAt - marks.arrivedAt,
    arrivedEpochMs: performance.timeOrigin + marks.arrivedAt,
    setupMs: timings.setupMs!,
    templateMs: timings.templateMs!,
    tokenizeMs: timings.tokenizeMs!,
    queueWaitMs: timings.queueWaitMs!,
    prefillMs: timings.prefillMs!,
    firstDeliveryMs: timings.firstDeliveryMs!,
    firstWriteMs: firstWriteAt - (generateAt + ttfbMs),
    serverFirstTokenMs: firstWriteAt - marks.arrivedAt,
    firstWriteEpochMs: performance.timeOrigin + firstWriteAt,
  };
}

export class FirstTokenTimings {
  readonly #storage = new AsyncLocalStorage<RequestMarks>();
  readonly #results = new Map<string, ServedFirstTokenTimings | null>();

  /** The backend the routes should call: marks the call and keeps the thunk of a timed request. */
  wrapBackend(backend: Backend): Backend {
    const storage = this.#storage;
    const mark = <T>(thunk: ModelOutputThunk<T>) => {
      const marks = storage.getStore();
      if (marks !== undefined && marks.thunk === undefined) marks.thunk = thunk as ModelOutputThunk<unknown>;
    };
    const begin = () => {
      const marks = storage.getStore();
      if (marks !== undefined) marks.generateAt ??= performance.now();
    };
    return new Proxy(backend, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property === "generateFromContext") {
          return async (...args: Parameters<Backend["generateFromContext"]>) => {
            begin();
            const result = await target.generateFromContext(...args);
            mark(result.thunk);
            return result;
          };
        }
        if (property === "generateFromRaw") {
          return async (...args: Parameters<Backend["generateFromRaw"]>) => {
            begin();
            const thunks = await target.generateFromRaw(...args);
            if (thunks[0] !== undefined) mark(thunks[0]);
            return thunks;
          };
        }
        // Methods run on the backend itself, so its private fields stay reachable.
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  /** Adds the hooks and GET /debug/first-token/:id; call before the routes are registered. */
  install(app: FastifyInstance): void {
    const storage = this.#storage;
    const marksOf = new WeakMap<object, RequestMarks>();
    app.addHook("onRequest", async (request, reply) => {
      const id = request.headers[timingIdHeader];
      if (typeof id !== "string" || id === "") return;
      const marks: RequestMarks = { id, arrivedAt: performance.now() };
      marksOf.set(request, marks);
      const raw: ServerResponse = reply.raw;
      const write = raw.write;
      raw.write = function (this: ServerResponse, ...args: unknown[]) {
        marks.firstWriteAt ??= performance.now();
        raw.write = write;
        return (write as (...rest: unknown[]) => boolean).apply(this, args);
      } as typeof raw.write;
      // A reply that is not streamed goes out in one end(body): its first byte is written there.
      const end = raw.end;
      raw.end = function (this: ServerResponse, ...args: unknown[]) {
        if (args[0] !== undefined && typeof args[0] !== "function") marks.firstWriteAt ??= performance.now();
        raw.end = end;
        return (end as (...rest: unknown[]) => ServerResponse).apply(this, args);
      } as typeof raw.end;
      // 'finish' once the last byte is handed to the socket, 'close' if the client left first. Only a
      // request that called the backend has a record to keep: any other request carrying the header (a
      // GET of the record itself) must not overwrite the record of the completion that owns the id.
      let kept = false;
      const keep = () => {
        if (!kept && marks.generateAt !== undefined) this.#keep(marks.id, stagesOf(marks));
        kept = true;
      };
      raw.once("finish", keep);
      raw.once("close", keep);
    });
    // Handlers run inside the request's store, so the backend wrapper finds its marks.
    app.addHook("onRoute", (route) => {
      const handler = route.handler;
      route.handler = function (this: unknown, request, reply) {
        const marks = marksOf.get(request);
        return marks === undefined
          ? handler.call(this as never, request, reply)
          : storage.run(marks, () => handler.call(this as never, request, reply));
      };
    });
    app.get<{ Params: { id: string } }>("/debug/first-token/:id", async (request, reply) => {
      const result = this.#results.get(request.params.id);
      if (result === undefined || result === null) {
        return reply.code(404).send({
          error: {
            message: `No first-token timings for id ${request.params.id}: the request did not finish, produced no token, or was dropped.`,
            type: "invalid_request_error",
            code: "timings_not_found",
          },
        });
      }
      return result;
    });
  }

  /** Kept until evicted (the oldest first past `keptResults`); reads leave it, so a GET is repeatable. */
  #keep(id: string, result: ServedFirstTokenTimings | null): void {
    // A re-used id moves to the end, so eviction order stays the order of completion.
    this.#results.delete(id);
    this.#results.set(id, result);
    if (this.#results.size > keptResults) this.#results.delete(this.#results.keys().next().value!);
  }
}
