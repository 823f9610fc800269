/**
 * The emulator worker's voice: posting a message to the page (its shape is
 * the one protocol.js gives) and putting an error into one line for it.
 */

export function post(message) {
  self.postMessage(message);
}

export function describe(error) {
  const text = String(error && error.message ? error.message : error);
  // A Python exception's message ends with the traceback's last line: keep that.
  const lines = text.trim().split("\n");
  return lines[lines.length - 1];
}
