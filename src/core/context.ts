import { Component } from "./component.js";
import { ContextTurn } from "./context-turn.js";
import { ContextCycleError } from "./errors/context-cycle-error.js";
import { InvalidContextNodeError } from "./errors/invalid-context-node-error.js";
import { ModelOutputThunk } from "./model-output-thunk.js";
import type { Span } from "./span.js";

const marker = Symbol.for("tessera.Context");

type ContextClass = abstract new (...args: never[]) => Context;

/**
 * The state of a session: an immutable linked list of spans. Every change makes a new node whose
 * previousNode is the old one; the root node holds no data.
 */
export abstract class Context {
  // On the prototype, not a field: nodes made by fromPrevious() never run a constructor.
  get [marker](): true {
    return true;
  }

  /**
   * Names of subclass fields copied from the previous node by fromPrevious(), which skips constructors. A
   * subclass with configuration lists it here: `static override propagatedFields = ["windowSize"]`.
   */
  static propagatedFields: readonly string[] = [];

  // Plain fields rather than #private ones: fromPrevious() builds nodes without running constructors,
  // and #private fields only exist on objects a constructor initialised.
  private previous: Context | null = null;
  private data: Span | null = null;

  /** Whether this context keeps multi-turn history for the model. */
  abstract get isChatContext(): boolean;

  /**
   * A new node linked to `previous`, carrying `data`. Built from the prototype without running the
   * subclass constructor (so subclasses with required constructor arguments still work); the fields named
   * in propagatedFields, along the class chain, are copied from `previous`.
   */
  static fromPrevious<C extends Context>(
    this: abstract new (
      ...args: never[]
    ) => C,
    previous: C,
    data: Span,
  ): C {
    if (!Context.isInstance(previous)) throw new InvalidContextNodeError("previous is not a Context");
    if (data === null || data === undefined) throw new InvalidContextNodeError("data is missing");
    // biome-ignore lint/complexity/noThisInStatic: the node must be of the subclass the method was called on.
    const node = Object.create(this.prototype) as C;
    const source = previous as unknown as Record<string, unknown>;
    const target = node as unknown as Record<string, unknown>;
    // biome-ignore lint/complexity/noThisInStatic: the subclass decides which fields propagate.
    for (const field of collectPropagatedFields(this)) target[field] = source[field];
    target.previous = previous;
    target.data = data;
    return node;
  }

  /** A new empty root context of this class (runs the constructor without arguments). */
  static resetToNew<C extends Context>(this: new () => C): C {
    return new this();
  }

  /** A new empty root context of the same runtime type; subclasses with configuration keep it. */
  newInstance(): Context {
    return new (this.constructor as new () => Context)();
  }

  get isRootNode(): boolean {
    return this.previous === null;
  }

  /** The node this one was created from; null for the root. Internal use. */
  get previousNode(): Context | null {
    return this.previous;
  }

  /** The data of this node; null for the root. Internal use. */
  get nodeData(): Span | null {
    return this.data;
  }

  /** A new context with `span` appended; same runtime type as this one. */
  add(span: Span): this {
    return (this.constructor as typeof Context).fromPrevious(this, span) as this;
  }

  /**
   * The spans of this context, oldest first; the most recent `lastN` when given. A span may appear more
   * than once (re-adding an output as a validation target is legitimate); a repeated node is a cycle and
   * throws ContextCycleError.
   */
  asList(lastN: number | null = null): Span[] {
    const spans: Span[] = [];
    const visited = new Set<Context>();
    let node: Context | null = this;
    while (node !== null && !node.isRootNode && (lastN === null || spans.length < lastN)) {
      if (visited.has(node)) throw new ContextCycleError(visited.size);
      visited.add(node);
      spans.push(node.data!);
      node = node.previous;
    }
    return spans.reverse();
  }

  /** The actions whose tools should be offered to the model; null when they cannot be determined. */
  actionsForAvailableTools(): Span[] | null {
    return this.viewForGeneration();
  }

  /** The most recent ModelOutputThunk among the last `checkLastN` spans, or null. */
  lastOutput(checkLastN = 3): ModelOutputThunk<unknown> | null {
    const recent = this.asList(checkLastN);
    for (let index = recent.length - 1; index >= 0; index -= 1) {
      const span = recent[index];
      if (ModelOutputThunk.isInstance(span)) return span;
    }
    return null;
  }

  /**
   * The last input/output turn, possibly partial: if the last span is an input, its output is null.
   * Outputs are thunks and components whose `role` is "assistant" (manually added assistant messages).
   */
  lastTurn(): ContextTurn | null {
    const history = this.asList(2);
    const last = history.at(-1);
    if (last === undefined) return null;
    if (ModelOutputThunk.isInstance(last) || isAssistantComponent(last)) {
      return new ContextTurn(history.length >= 2 ? history[0]! : null, last as ModelOutputThunk<unknown>);
    }
    return new ContextTurn(last, null);
  }

  /** The spans to send for the next generation, in order; null when generation is not possible now. */
  abstract viewForGeneration(): Span[] | null;

  /** True for any Context, also one from another copy of this package. */
  static isInstance(value: unknown): value is Context {
    return typeof value === "object" && value !== null && marker in value;
  }
}

// Message lives in a higher layer, so an assistant message is recognised by shape: a Component with role "assistant".
function isAssistantComponent(span: Span): span is Component<unknown> {
  return Component.isInstance(span) && (span as unknown as { role?: unknown }).role === "assistant";
}

function collectPropagatedFields(contextClass: ContextClass): Set<string> {
  const fields = new Set<string>();
  let current: unknown = contextClass;
  while (typeof current === "function" && current !== Function.prototype) {
    const own = Object.hasOwn(current, "propagatedFields")
      ? (current as unknown as { propagatedFields: readonly string[] }).propagatedFields
      : [];
    for (const field of own) fields.add(field);
    current = Object.getPrototypeOf(current);
  }
  return fields;
}
