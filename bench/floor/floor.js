// Starts the floor worker and records when its one line arrives.
const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
worker.onmessage = (event) => {
  document.getElementById("out").textContent = event.data;
  window.floorReadyAt = performance.now();
};
