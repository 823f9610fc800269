/**
 * The emulator worker's message loop: an INTERRUPT is handled at once, even
 * while a line runs; every other request waits for the runtime, goes to its
 * handler in calls.js, and a failure becomes an ERROR for that request
 * alone. Background work waits for the quiet after each request.
 */

import { Msg } from "./protocol.js";
import { describe, post } from "./port.js";
import { inUse, whenQuiet } from "./background.js";
import { handlers, interrupt } from "./calls.js";

/** Answer the page's messages; `runtime()` is the promise of the loaded runtime, which posts FATAL itself. */
export function serve(runtime) {
  self.addEventListener("message", async (event) => {
    const message = event.data;
    inUse(); // the terminal is in use: the snapshot waits for the next quiet moment
    if (message.type === Msg.INTERRUPT) {
      interrupt(message.sid);
      return;
    }
    const handler = handlers[message.type];
    if (!handler) {
      post({ type: Msg.ERROR, id: message.id, message: `unknown message type ${message.type}` });
      return;
    }
    try {
      await runtime();
    } catch {
      return; // FATAL was posted once, by runtime()
    }
    try {
      await handler(message);
    } catch (error) {
      post({ type: Msg.ERROR, id: message.id, message: describe(error) });
    }
    whenQuiet(message.type);
  });
}
