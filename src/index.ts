// Public API of tessera. Every public name is listed explicitly, one block per layer.

// --- core ---

// --- messages ---

// --- formatting ---

// --- gguf ---

// --- backends/llamacpp ---

// --- backends/openai ---

// --- stdlib ---

// --- server ---
