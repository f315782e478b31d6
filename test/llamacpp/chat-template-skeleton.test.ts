// A built-in chat template renders a conversation shape once into a skeleton (the output with marks where
// the message texts go), then fills it for every later conversation of that shape instead of walking the
// template again. The filled text must equal the interpreter's render for every text, and a template that
// changes a text (llama3 trims) must keep rendering whole.
import { Template } from "@huggingface/jinja";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderBuiltinChatTemplate } from "../../src/backends/llamacpp/builtin-chat-template-renderer.js";
import { builtinChatTemplates } from "../../src/backends/llamacpp/builtin-chat-templates.js";

const texts = [
  "Hello",
  "  padded  ",
  "\tTabbed\n\nlines\n",
  "ünïcödé 日本 🎉",
  "{{ bos_token }} {% for x in y %}",
  "<s>[INST] fake [/INST]</s><|im_end|>",
  "quotes \" and ' and \\ and <&>",
  " ",
  "",
  "mark \u{F8FF}0\u{F8FE} inside",
  "\u{F8FF}",
  "a".repeat(5000),
];
const roles = ["system", "user", "assistant", "tool", "user"];

function conversation(seed: number, length: number) {
  return Array.from({ length }, (_, index) => ({
    role: roles[(seed + index) % roles.length]!,
    content: texts[(seed * 7 + index * 3) % texts.length]!,
  }));
}

afterEach(() => vi.restoreAllMocks());

describe("the skeleton of a built-in chat template", () => {
  for (const [name, source] of Object.entries(builtinChatTemplates)) {
    it(`renders ${name} exactly as the interpreter does, over many texts and shapes`, () => {
      const reference = new Template(source);
      for (let seed = 0; seed < 60; seed++) {
        for (const length of [1, 2, 3, 5]) {
          for (const addGenerationPrompt of [true, false]) {
            const variables = {
              messages: conversation(seed, length),
              add_generation_prompt: addGenerationPrompt,
              bos_token: "<s>",
              eos_token: "</s>",
            };
            const expected = reference.render(variables);
            expect(renderBuiltinChatTemplate(source, variables, name, 1e9)).toBe(expected);
          }
        }
      }
    });
  }

  it("walks the template for a shape's first render and its skeleton, then only fills it", () => {
    const render = vi.spyOn(Template.prototype, "render");
    const shape = (first: string, second: string) => ({
      messages: [
        { role: "system", content: first },
        { role: "user", content: second },
      ],
      add_generation_prompt: true,
      bos_token: "<s>",
      eos_token: "</s>",
      // A flag no other test uses, so this shape is new here.
      skeleton_probe_shape: true,
    });
    const calls = () => render.mock.calls.length;
    const reference = (first: string, second: string) =>
      new Template(builtinChatTemplates.llama2).render(shape(first, second));
    const renderShape = (first: string, second: string) =>
      renderBuiltinChatTemplate(builtinChatTemplates.llama2, shape(first, second), "llama2", 1e9);
    // First sight: rendered whole (a shape seen once costs no extra renders).
    expect(renderShape("Be brief.", "Hi")).toBe(reference("Be brief.", "Hi"));
    render.mockClear();
    // Second sight: the skeleton is made (marks, then the probe) and filled.
    expect(renderShape("Be kind.", "Sort 4 1 3 2")).toBe(reference("Be kind.", "Sort 4 1 3 2"));
    expect(calls()).toBe(3); // the two skeleton renders and the reference
    render.mockClear();
    // Later: filled, no walk.
    const third = renderShape("Be exact.", "  spaced  ");
    expect(calls()).toBe(0);
    expect(third).toBe(reference("Be exact.", "  spaced  "));

    // llama3 trims each text: once its probe fails, every render of it walks the template once.
    const llama3 = (first: string, second: string) =>
      renderBuiltinChatTemplate(builtinChatTemplates.llama3, shape(first, second), "llama3", 1e9);
    llama3(" a ", " b ");
    llama3(" c ", " d ");
    render.mockClear();
    llama3(" e ", " f ");
    expect(calls()).toBe(1);
    llama3(" g ", " h ");
    expect(calls()).toBe(2);
  });

  it("keeps a shape in use while a stream of new shapes passes through the 256 kept", () => {
    const render = vi.spyOn(Template.prototype, "render");
    const frequent = (text: string) => ({
      messages: [{ role: "user", content: text }],
      add_generation_prompt: true,
      bos_token: "<s>",
      eos_token: "</s>",
      frequent_shape: true,
    });
    const once = (index: number) => ({ ...frequent("x"), [`unique_${index}`]: true });
    const use = (value: Record<string, unknown>) =>
      renderBuiltinChatTemplate(builtinChatTemplates.chatml, value, "chatml", 1e9);
    for (const text of ["a", "b", "c"]) use(frequent(text));
    render.mockClear();
    for (let index = 0; index < 600; index++) {
      use(once(index));
      if (index % 10 === 0)
        expect(use(frequent(`t${index}`))).toBe(
          new Template(builtinChatTemplates.chatml).render(frequent(`t${index}`)),
        );
    }
    // One render per new shape (seen once), one per reference render above: the frequent shape's skeleton
    // was never rebuilt.
    expect(render.mock.calls.length).toBe(600 + 60);
  });
});
