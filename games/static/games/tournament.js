// A tournament's page stays current: its socket (games/tournaments/consumers.py) says when the
// tournament changed (an entry, a game's end, a new round), and the page fetches its live part
// (standings, crosstables, rounds) again, the same partial the page was first drawn with.
(function () {
  "use strict";
  const page = document.querySelector(".tournament[data-live]");
  if (!page) return;
  const part = document.getElementById("tournament-live");
  let shown = Number(page.dataset.version) || 0;
  let wait = 1000;
  let fetching = false;
  let again = false;

  async function refresh() {
    if (fetching) { again = true; return; }
    fetching = true;
    try {
      const answer = await fetch(page.dataset.live, { headers: { "HX-Request": "true" }, credentials: "same-origin" });
      if (answer.ok) {
        const open = new Set([...part.querySelectorAll("details[open] summary")].map((s) => s.textContent.trim()));
        part.innerHTML = await answer.text();
        // Rounds a reader had opened stay open.
        part.querySelectorAll("details summary").forEach((s) => {
          if (open.has(s.textContent.trim())) s.parentElement.open = true;
        });
        page.dataset.version = String(shown);
        page.dispatchEvent(new CustomEvent("tournament:redrawn", { bubbles: true }));
      }
    } finally {
      fetching = false;
      if (again) { again = false; refresh(); }
    }
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + page.dataset.socket);
    socket.addEventListener("open", () => {
      if (wait > 1000) refresh(); // came back after a break: catch up
      wait = 1000;
    });
    socket.addEventListener("message", (message) => {
      const data = JSON.parse(message.data);
      if (data.type === "changed" && data.version > shown) {
        shown = data.version;
        refresh();
      }
    });
    socket.addEventListener("close", () => {
      setTimeout(connect, wait);
      wait = Math.min(wait * 2, 30000);
    });
  }
  connect();
})();
