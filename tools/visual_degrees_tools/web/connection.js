// The WebSocket connection: it reconnects by itself (0.5 s, doubling to 10 s) and hands every message
// to its handlers; `opened` is where the page resumes the run it follows.
import { endpoint } from "./settings.js";

export class Connection {
  constructor(handlers) {
    this.handlers = handlers; // { state(state, text), opened(), message(msg) }
    this.socket = null;
    this.attempt = 0;
    this.timer = null;
  }

  get open() {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  connect() {
    clearTimeout(this.timer);
    const target = endpoint();
    const base = target.url;
    if (!base) {
      this.handlers.state("offline", "set the WebSocket URL in the connection settings");
      return;
    }
    let url;
    try {
      url = new URL(base);
      if (url.protocol !== "ws:" && url.protocol !== "wss:") throw new Error("not a WebSocket URL");
    } catch {
      this.handlers.state("offline", "the WebSocket URL in the settings is not valid");
      return;
    }
    if (target.token) url.searchParams.set("token", target.token);
    if (target.token && target.run) url.searchParams.set("run", target.run);
    const socket = new WebSocket(url.href);
    this.socket = socket;
    this.handlers.state("connecting", this.attempt ? "reconnecting…" : "connecting…");
    socket.onopen = () => {
      if (socket !== this.socket) return;
      this.attempt = 0;
      this.handlers.state("open", "connected");
      this.handlers.opened();
    };
    socket.onmessage = (message) => {
      if (socket !== this.socket) return;
      let data;
      try {
        data = JSON.parse(message.data);
      } catch {
        return;
      }
      if (data && typeof data === "object") this.handlers.message(data);
    };
    socket.onclose = () => {
      if (socket !== this.socket) return;
      this.socket = null;
      const delay = Math.min(10000, 500 * 2 ** this.attempt) + Math.floor(Math.random() * 250);
      this.attempt += 1;
      this.handlers.state("closed", `disconnected; retrying in ${Math.round(delay / 1000)} s`);
      this.timer = setTimeout(() => this.connect(), delay);
    };
  }

  reconnect() {
    const old = this.socket;
    this.socket = null;
    this.attempt = 0;
    if (old) old.close(1000, "settings changed");
    this.connect();
  }

  send(message) {
    if (!this.open) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  drop() {
    if (this.socket) this.socket.close(4000, "dropped on purpose");
  }
}
