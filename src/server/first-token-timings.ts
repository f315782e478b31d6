// Where a served request's first token went, for `tessera bench ttfb`: request parsing and handling up to
// the backend call, the generation's own stages (GenerationMetadata.timings), and the first write to the
// socket. Off unless the server is started with `firstTokenTimings` (TESSERA_SERVE_TIMINGS=1 for `tessera
// serve`), and then recorded only for requests that carry an `x-tessera-timing-id` header; the figures
// are read back from GET /debug/first-token/<id> once the response has ended.
//
// The marks cost the request they time next to nothing, or the benchmark would time its own probe: a
// synchronous onRequest hook (an async one costs every request a promise and a hop), and serveCompletion
// marks the backend call, its thunk and the first write itself. An earlier version found its marks through
// AsyncLocalStorage and a Proxy of the backend: async context tracking then ran on every promise of the
// request, and `tessera serve` answered its first token 4-5% later with the timings on than off
// (`node benchmarks/serve-layers.mjs` has both rows).
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  monotonicMs,
  type ServedFirstTokenTimings,
  timingIdHeader,
} from "../backends/openai/served-first-token-timings.js";
import type { ModelOutputThunk } from "../core/model-output-thunk.js";

// Tests and older importers read the record type from here.
export type { ServedFirstTokenTimings };

/** One timed request's marks, set by serveCompletion as it gets there (performance.now() values). */
export class FirstTokenMarks {
  readonly id: string;
  readonly arrivedAt: number;
  generateAt: number | undefined;
  firstWriteAt: number | undefined;
  thunk: ModelOutputThunk<unknown> | undefined;

  constructor(id: string, arrivedAt: number) {
    this.id = id;
    this.arrivedAt = arrivedAt;
  }

  /** Just before the backend is called (the first call counts). */
  generating(): void {
    this.generateAt ??= performance.now();
  }

  /** The generation whose stages this request reports. */
  started(thunk: ModelOutputThunk<unknown>): void {
    this.thunk ??= thunk;
  }

  /** Just before the first byte of the answer is written: its first event, or a whole JSON body. */
  writing(): void {
    this.firstWriteAt ??= performance.now();
  }
}

/** Bounded: a benchmark reads each id right after its response; old ones are dropped first. */
const keptResults = 1024;
/** Fastify's limit on a path parameter (maxParamLength): a longer id could be recorded but never read. */
const maxIdLength = 100;

function stagesOf(marks: FirstTokenMarks): ServedFirstTokenTimings | null {
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
    arrivedMonotonicMs: monotonicMs(marks.arrivedAt),
    setupMs: timings.setupMs!,
    templateMs: timings.templateMs!,
    tokenizeMs: timings.tokenizeMs!,
    queueWaitMs: timings.queueWaitMs!,
    prefillMs: timings.prefillMs!,
    firstDeliveryMs: timings.firstDeliveryMs!,
    firstWriteMs: firstWriteAt - (generateAt + ttfbMs),
    serverFirstTokenMs: firstWriteAt - marks.arrivedAt,
    firstWriteEpochMs: performance.timeOrigin + firstWriteAt,
    firstWriteMonotonicMs: monotonicMs(firstWriteAt),
  };
}

export class FirstTokenTimings {
  readonly #marks = new WeakMap<FastifyRequest, FirstTokenMarks>();
  readonly #results = new Map<string, ServedFirstTokenTimings | null>();

  /** The marks of a timed request (one that carries an id); undefined for any other. */
  marksOf(request: FastifyRequest): FirstTokenMarks | undefined {
    return this.#marks.get(request);
  }

  /** Adds the hook and GET /debug/first-token/:id. */
  install(app: FastifyInstance): void {
    app.addHook("onRequest", (request, reply, done) => {
      const id = request.headers[timingIdHeader];
      if (typeof id === "string" && id !== "" && id.length <= maxIdLength) {
        const marks = new FirstTokenMarks(id, performance.now());
        this.#marks.set(request, marks);
        // 'finish' once the last byte is handed to the socket, 'close' if the client left first (then the
        // record is kept empty, and GET answers 404, when the generation had no timings yet). Only a
        // request that called the backend has a record to keep: any other request carrying the header (a
        // GET of the record itself) must not overwrite the record of the completion that owns the id.
        let kept = false;
        const keep = () => {
          if (!kept && marks.generateAt !== undefined) this.#keep(marks.id, stagesOf(marks));
          kept = true;
        };
        reply.raw.once("finish", keep);
        reply.raw.once("close", keep);
      }
      done();
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
