import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** The server's Prometheus metrics, in a registry of its own (several servers can live in one process). */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: "tessera_http_requests_total",
    help: "HTTP requests answered, by route and status code.",
    labelNames: ["route", "status"] as const,
    registers: [this.registry],
  });
  readonly tokens = new Counter({
    name: "tessera_tokens_total",
    help: "Tokens processed, by kind (prompt or completion).",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });
  readonly ttfb = new Histogram({
    name: "tessera_time_to_first_byte_seconds",
    help: "Seconds from a request's arrival to the first byte of generated content sent.",
    labelNames: ["route"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: "tessera_request_duration_seconds",
    help: "Seconds from a generation request's arrival to its last byte.",
    labelNames: ["route"] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: "tessera_queue_depth",
    help: "Requests waiting for a free generation slot.",
    registers: [this.registry],
  });
  readonly activeGenerations = new Gauge({
    name: "tessera_active_generations",
    help: "Generations running now.",
    registers: [this.registry],
  });
  readonly cancelled = new Counter({
    name: "tessera_generations_cancelled_total",
    help: "Generations cancelled because their client disconnected.",
    registers: [this.registry],
  });
}
