// The code of the chat-template sandbox worker, as plain JavaScript so the same text runs from src/
// (vitest) and dist/ (node) without a build step for the worker. It only ever sees structured-cloned
// data: the interpreter (@huggingface/jinja) walks its own AST and exposes no host object, and this
// thread has an empty environment, a small heap and is terminated by its owner on timeout.
export const chatTemplateWorkerSource = `
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const { Template } = require(workerData.jinjaPath);

const compiled = new Map();
const cacheSize = 8;

function compile(source) {
  let template = compiled.get(source);
  if (template === undefined) {
    template = new Template(source);
    if (compiled.size >= cacheSize) compiled.delete(compiled.keys().next().value);
    compiled.set(source, template);
  }
  return template;
}

function describe(error) {
  return error instanceof Error ? error.message : String(error);
}

parentPort.postMessage({ ready: true });

parentPort.on("message", (request) => {
  let template;
  try {
    template = compile(request.source);
  } catch (error) {
    parentPort.postMessage({ id: request.id, ok: false, failure: "parse", message: describe(error) });
    return;
  }
  try {
    // raise_exception and strftime_now are the interpreter's own globals.
    const output = template.render(request.variables);
    if (typeof output !== "string") {
      parentPort.postMessage({ id: request.id, ok: false, failure: "render", message: "it did not produce text" });
    } else if (output.length > request.maxOutputChars) {
      parentPort.postMessage({ id: request.id, ok: false, failure: "output", measured: output.length });
    } else {
      parentPort.postMessage({ id: request.id, ok: true, output });
    }
  } catch (error) {
    parentPort.postMessage({ id: request.id, ok: false, failure: "render", message: describe(error) });
  }
});
`;
