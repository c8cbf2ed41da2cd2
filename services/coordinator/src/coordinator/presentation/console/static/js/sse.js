// A text/event-stream parser (the WHATWG rules that matter here): feed it chunks of text, it calls `onEvent`
// with {id, event, data} for each complete event. Comments (heartbeats) are ignored.

export class EventStreamParser {
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.buffer = "";
    this.reset();
  }

  reset() {
    this.id = null;
    this.event = "";
    this.data = [];
  }

  feed(text) {
    this.buffer += text;
    let end;
    while ((end = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.buffer.slice(0, end);
      const width = this.buffer.startsWith("\r\n", end) ? 2 : 1;
      this.buffer = this.buffer.slice(end + width);
      this.line(line);
    }
  }

  line(line) {
    if (line === "") {
      if (this.data.length || this.event) {
        this.onEvent({ id: this.id, event: this.event || "message", data: this.data.join("\n") });
      }
      this.reset();
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    else if (field === "id") this.id = value;
  }
}
