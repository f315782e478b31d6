// Runs an action that must throw and returns what it threw, so a test can check the error's class and
// message; an action that returns instead fails the test.
export function captureError(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}
