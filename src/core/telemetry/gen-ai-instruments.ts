import { type Histogram, type MeterProvider, metrics } from "@opentelemetry/api";
import { chunkTimeBuckets, durationBuckets, GenAiMetric, tokenBuckets } from "./gen-ai-conventions.js";

export interface GenAiInstruments {
  operationDuration: Histogram;
  tokenUsage: Histogram;
  timeToFirstChunk: Histogram;
}

let cached: { provider: MeterProvider; instruments: GenAiInstruments } | null = null;

/**
 * The three GenAI client histograms. The metrics API has no proxy provider: instruments made before the
 * user registers an SDK stay no-ops, so they are made again whenever the global provider changed.
 */
export function genAiInstruments(): GenAiInstruments {
  const provider = metrics.getMeterProvider();
  if (cached?.provider === provider) return cached.instruments;
  const meter = provider.getMeter("tessera");
  const instruments: GenAiInstruments = {
    operationDuration: meter.createHistogram(GenAiMetric.operationDuration, {
      description: "GenAI operation duration.",
      unit: "s",
      advice: { explicitBucketBoundaries: durationBuckets },
    }),
    tokenUsage: meter.createHistogram(GenAiMetric.tokenUsage, {
      description: "Number of input and output tokens used.",
      unit: "{token}",
      advice: { explicitBucketBoundaries: tokenBuckets },
    }),
    timeToFirstChunk: meter.createHistogram(GenAiMetric.timeToFirstChunk, {
      description: "Time to receive the first chunk of a streamed response, from the request.",
      unit: "s",
      advice: { explicitBucketBoundaries: chunkTimeBuckets },
    }),
  };
  cached = { provider, instruments };
  return instruments;
}
