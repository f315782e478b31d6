// The compiler and linker flags of the sanitizer build, shared by llama.cpp and the addon so that both
// halves are instrumented the same way (build-native-sanitize.mjs).
// -O1 keeps ASan's reports readable while running the tests in reasonable time; frame pointers give
// ASan's fast unwinder whole stacks; -g lets the reports name files and lines. NDEBUG as in the release
// builds we ship: assert() must not stop a run where the real library would go on.
export const sanitizerCompileFlags = [
  "-fsanitize=address,undefined",
  "-fno-omit-frame-pointer",
  "-g",
  "-O1",
  "-DNDEBUG",
];
export const sanitizerLinkFlags = ["-fsanitize=address,undefined"];
