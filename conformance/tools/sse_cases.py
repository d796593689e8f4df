#!/usr/bin/env python3
"""Writes conformance/cases/sse/: cases of the `sse` op (the event-stream decoder).

Each case is a response body as it arrives (`input.chunks`, strings) and the
blocks a decoder must list (`expect.events`), in the format of
conformance/FORMAT.md, "`sse` (the event-stream decoder)".

The expectations are written by hand below, from the HTML Standard's
"Interpreting an event stream" (WHATWG HTML §9.2.6) and from the deviations
FORMAT.md states for the `sse` op:
  - a block that set a field is listed even when it has no `data` (a browser
    dispatches nothing then; SEP-1858's `buffer_input` / `input_required`
    events have no data), and it lists only the fields its own lines set
    (a browser's last-event-ID buffer outlives its block; here `id` does not);
  - a block that set no field (comments, ignored lines only) is not listed;
  - `retry` counts only when its value is ASCII digits (an empty value too is
    ignored); an `id` whose value contains NULL is ignored;
  - a block not ended by a blank line when the stream ends is discarded;
  - CR, LF and CRLF each end a line, also when the CR and the LF of a CRLF
    arrive in different chunks; one U+FEFF at the very start is skipped.

The script holds its own decoder (`Decoder`), written from the same rules and
independent of mrtr's. For every case it checks that the decoder gives the
hand-written events for the given chunking and for every split of the whole
stream into 1, 2 and 3 chunks (empty chunks included); it stops with an error
and writes nothing when any of them disagrees.

Chunks are JSON strings, so they split between characters, never inside a
UTF-8 sequence; the multibyte cases split next to multibyte characters.
Runners pass each chunk's UTF-8 bytes to the decoder in order. `retry` values
stay below 2^53 so that every runner's JSON numbers hold them exactly.

Run from the repository root: python3 conformance/tools/sse_cases.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "cases" / "sse"

WHATWG = 'WHATWG HTML §9.2.6 "Interpreting an event stream"'
GRAMMAR = 'WHATWG HTML §9.2.5 "Parsing an event stream"'
FORMAT = 'FORMAT.md "sse"'
SEP1858 = '000 SEP-1858 "Specification"'
SEP1335 = '003 SEP-1335 "rel=\\"stream\\" URL"'


class Decoder:
    """An incremental event-stream decoder: feed() text chunks, then finish()."""

    def __init__(self) -> None:
        self.started = False  # a first character was seen (the BOM chance is gone)
        self.after_cr = False  # the last character was CR: an LF right after it is the CRLF's
        self.line: list[str] = []
        self.block: dict = {}
        self.data: list[str] | None = None
        self.events: list[dict] = []

    def feed(self, text: str) -> None:
        for ch in text:
            if not self.started:
                self.started = True
                if ch == "\ufeff":
                    continue
            if ch == "\r":
                self.after_cr = True
                self._line("".join(self.line))
                self.line = []
            elif ch == "\n":
                if self.after_cr:
                    self.after_cr = False
                    continue
                self._line("".join(self.line))
                self.line = []
            else:
                self.after_cr = False
                self.line.append(ch)

    def finish(self) -> list[dict]:
        # The unterminated line and the block it belongs to are discarded.
        return self.events

    def _line(self, line: str) -> None:
        if line == "":
            self._dispatch()
            return
        if line.startswith(":"):
            return
        if ":" in line:
            name, value = line.split(":", 1)
            if value.startswith(" "):
                value = value[1:]
        else:
            name, value = line, ""
        if name == "event":
            self.block["event"] = value
        elif name == "data":
            if self.data is None:
                self.data = []
            self.data.append(value)
        elif name == "id":
            if "\u0000" not in value:
                self.block["id"] = value
        elif name == "retry":
            if value != "" and all("0" <= c <= "9" for c in value):
                self.block["retry"] = int(value)
        # any other name: ignored

    def _dispatch(self) -> None:
        block = dict(self.block)
        if self.data is not None:
            block["data"] = "\n".join(self.data)
        if block:
            self.events.append(block)
        self.block = {}
        self.data = None


def decode(chunks: list[str]) -> list[dict]:
    d = Decoder()
    for c in chunks:
        d.feed(c)
    return d.finish()


def chunkings(stream: str):
    """Every split of stream into 1, 2 and 3 chunks (empty chunks included)."""
    yield [stream]
    n = len(stream)
    for i in range(n + 1):
        yield [stream[:i], stream[i:]]
        for j in range(i, n + 1):
            yield [stream[:i], stream[i:j], stream[j:]]


def j(value) -> str:
    """A JSON-RPC message as one line of JSON text, as a server writes it into `data`."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


ELICIT = {"jsonrpc": "2.0", "id": "s-1", "method": "elicitation/create",
          "params": {"mode": "form", "message": "Please provide your GitHub username",
                     "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}
RESULT = {"jsonrpc": "2.0", "id": 1,
          "result": {"content": [{"type": "text", "text": "Current weather in New York: 72°F, partly cloudy"}]}}
PROGRESS = {"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "p1", "progress": 50, "total": 100}}

# (name, description, chunks, expected events)
CASES: list[tuple[str, str, list[str], list[dict]]] = [
    # --- line ends
    ("lf-line-ends", f"{WHATWG}: LF ends a line, an empty line ends the block.",
     ["event: message\ndata: hello\n\n"], [{"event": "message", "data": "hello"}]),
    ("cr-line-ends", f"{WHATWG}: a CR alone ends a line, so CR CR ends a block (the stream may end right after it).",
     ["event: message\rdata: hello\r\rdata: bye\r\r"],
     [{"event": "message", "data": "hello"}, {"data": "bye"}]),
    ("crlf-line-ends", f"{WHATWG}: CRLF ends a line once, not twice (no empty line between the two fields).",
     ["event: message\r\ndata: hello\r\n\r\n"], [{"event": "message", "data": "hello"}]),
    ("mixed-line-ends", f"{WHATWG}: CR, LF and CRLF mixed in one stream each end one line.",
     ["data: a\rdata: b\ndata: c\r\n\ndata: d\n\r\n"], [{"data": "a\nb\nc"}, {"data": "d"}]),
    ("crlf-split-across-chunks",
     f"{WHATWG} and {FORMAT}: a CRLF whose CR ends one chunk and whose LF starts the next is one line end; "
     "reading the LF as a second (empty) line would split the block in two.",
     ["data: a\r", "\ndata: b\r", "\n\r", "\n"], [{"data": "a\nb"}]),
    ("cr-at-chunk-end-then-cr",
     f"{WHATWG}: a CR at the end of a chunk followed by a CR (not LF) in the next chunk is an empty line: "
     "the block ends there, without waiting for more input.",
     ["data: a\r", "\rdata: b\r", "\r"], [{"data": "a"}, {"data": "b"}]),
    ("blank-lines-only", f"{WHATWG}: empty lines with no field before them end empty blocks, which are not listed ({FORMAT}).",
     ["\n\r\n\r\n\n"], []),
    ("empty-stream", f"{WHATWG}: a body with no bytes has no events.", [], []),
    ("empty-chunks", f"{FORMAT}: empty chunks change nothing.", ["", "data: x\n", "", "\n", ""], [{"data": "x"}]),
    # --- byte order mark
    ("bom-at-start-skipped", f"{GRAMMAR} (the stream is UTF-8 decoded, which drops one leading BOM) and {FORMAT}: "
     "one BOM at the very start of the stream is skipped.",
     ["\ufeffdata: x\n\n"], [{"data": "x"}]),
    ("bom-alone-in-first-chunk", f"{GRAMMAR} and {FORMAT}: the BOM is skipped also when it arrives alone in the first chunk.",
     ["\ufeff", "data: x\n\n"], [{"data": "x"}]),
    ("second-bom-kept", f"{GRAMMAR} and {FORMAT}: only one BOM is skipped; a second one is part of the field name "
     "\"\\ufeffdata\", an unknown field, so that block sets nothing and is not listed.",
     ["\ufeff\ufeffdata: x\n\ndata: y\n\n"], [{"data": "y"}]),
    ("bom-not-at-start-kept", f"{GRAMMAR} and {FORMAT}: a BOM that is not the first character is kept: "
     "\"\\ufeffdata\" is an unknown field, ignored, while the block's other field still counts.",
     ["data: a\n\n\ufeffdata: b\nevent: e\n\n"], [{"data": "a"}, {"event": "e"}]),
    # --- comments and field syntax
    ("comments-ignored", f"{WHATWG}: a line starting with a colon is a comment, ignored wherever it occurs.",
     [": hello\ndata: x\n: in the middle\n:\n\n"], [{"data": "x"}]),
    ("comment-only-block-not-listed", f"{WHATWG} and {FORMAT}: a block of comments only (a keep-alive) sets no field "
     "and is not listed.",
     [": keep-alive\n\n: another\r\n\r\ndata: x\n\n"], [{"data": "x"}]),
    ("field-without-colon", f"{WHATWG}: a line with no colon is a field name with the empty value: `data` alone is "
     "an empty data line, `event` alone an empty event name.",
     ["data\n\nevent\ndata\n\n"], [{"data": ""}, {"event": "", "data": ""}]),
    ("one-space-stripped", f"{WHATWG}: exactly one U+0020 SPACE after the colon is removed; a second one is kept, "
     "as is the value when no space follows the colon, and a tab is not a space.",
     ["data:  two\n\ndata:none\n\ndata: \n\ndata:\tx\n\n"],
     [{"data": " two"}, {"data": "none"}, {"data": ""}, {"data": "\tx"}]),
    ("colon-in-value", f"{WHATWG}: the field name ends at the first colon; later colons belong to the value.",
     ["data: a:b: c\nevent:ping:pong\n\n"], [{"event": "ping:pong", "data": "a:b: c"}]),
    ("field-names-exact", f"{WHATWG}: field names compare exactly: `Data`, `DATA`, ` data` and `data ` are unknown "
     "fields, ignored.",
     ["Data: a\nDATA: b\n data: c\ndata : d\ndata: e\n\n"], [{"data": "e"}]),
    ("unknown-fields-ignored", f"{WHATWG}: unknown fields are ignored; a block of unknown fields only sets nothing "
     f"and is not listed ({FORMAT}).",
     ["foo: bar\n\nfoo: bar\ndata: x\nbaz\n\n"], [{"data": "x"}]),
    # --- data
    ("data-lines-joined", f"{WHATWG}: the values of several data lines are joined with LF, with no LF at the end.",
     ["data: a\ndata: b\ndata: c\n\n"], [{"data": "a\nb\nc"}]),
    ("empty-data-lines-joined", f"{WHATWG}: two empty data lines give one LF (each appends its value and an LF, the "
     "last LF is removed).",
     ["data\ndata:\n\n"], [{"data": "\n"}]),
    # --- event
    ("event-name", f"{WHATWG}: `event` sets the block's event name; the last one in a block wins.",
     ["event: first\nevent: notification\ndata: x\n\n"], [{"event": "notification", "data": "x"}]),
    # --- id
    ("id-empty", f"{WHATWG}: an empty `id` (with or without colon) is an id, the empty string; a block with only "
     f"it is listed ({FORMAT}).",
     ["id\ndata: x\n\nid:\n\n"], [{"id": "", "data": "x"}, {"id": ""}]),
    ("id-with-null-ignored", f"{WHATWG} (\"If the field value does not contain U+0000 NULL\") and {FORMAT}: an id "
     "containing NULL is ignored; an earlier id of the same block stays.",
     ["id: 1\u00002\ndata: x\n\nid: 7\nid: 8\u0000\ndata: y\n\n"], [{"data": "x"}, {"id": "7", "data": "y"}]),
    ("id-per-block", f"{WHATWG}: `id` sets the block's event id, kept as a string; {FORMAT}: a block lists only "
     "the fields its own lines set, so the id of one block is not repeated on the next (a browser's last event ID "
     "buffer would be).",
     ["id: 5\ndata: a\n\ndata: b\n\n"], [{"id": "5", "data": "a"}, {"data": "b"}]),
    # --- retry
    ("retry-digits", f"{WHATWG}: `retry` with ASCII digits is a reconnection time in ms (leading zeros allowed); "
     "a block of `id` and `retry` only is listed, as 003 SEP-1335 \"Allow server to disconnect at will\" sends it.",
     ["id: 0\nretry: 3000\n\nretry: 0042\n\n"], [{"id": "0", "retry": 3000}, {"retry": 42}]),
    ("retry-large", f"{WHATWG}: a long run of digits is one integer (2^53 - 1, which every runner's numbers hold).",
     ["retry: 9007199254740991\n\n"], [{"retry": 9007199254740991}]),
    ("retry-not-digits-ignored", f"{WHATWG} (\"If the field value consists of only ASCII digits\") and {FORMAT}: "
     "a retry with a sign, a unit, a decimal point, or a second space before it is ignored.",
     ["retry: 30s\ndata: a\n\nretry: -1\ndata: b\n\nretry: 1.5\ndata: c\n\nretry:  100\ndata: d\n\n"],
     [{"data": "a"}, {"data": "b"}, {"data": "c"}, {"data": "d"}]),
    ("retry-empty-ignored", f"{FORMAT}: an empty retry (with or without colon) is not ASCII digits and is ignored.",
     ["retry\ndata: a\n\nretry:\ndata: b\n\n"], [{"data": "a"}, {"data": "b"}]),
    ("retry-last-valid-wins", f"{WHATWG}: within a block each valid retry replaces the previous one; an invalid one "
     "leaves it.",
     ["retry: 1000\nretry: 2000\nretry: soon\n\n"], [{"retry": 2000}]),
    # --- end of stream
    ("unterminated-block-discarded", f"{WHATWG} (\"Once the end of the file is reached, any pending data must be "
     "discarded\") and {FORMAT}: a last block without its blank line is discarded.",
     ["data: a\n\nevent: e\ndata: b\n"], [{"data": "a"}]),
    ("unterminated-line-discarded", f"{WHATWG} and {FORMAT}: a last line without a line end is discarded with its block.",
     ["data: a\n\ndata: b"], [{"data": "a"}]),
    # --- several events, JSON-RPC, multibyte
    ("several-events-one-chunk", f"{WHATWG}: several blocks in one chunk are listed in order.",
     ["event: a\ndata: 1\n\nevent: b\ndata: 2\n\nid: 3\ndata: 3\n\n"],
     [{"event": "a", "data": "1"}, {"event": "b", "data": "2"}, {"id": "3", "data": "3"}]),
    ("jsonrpc-in-data", f"{WHATWG}: a JSON-RPC response in one data line is its data, byte for byte (colons, "
     "quotes and the multibyte degree sign included).",
     ["id: 7\ndata: " + j(RESULT) + "\n\n"], [{"id": "7", "data": j(RESULT)}]),
    ("jsonrpc-over-data-lines", f"{WHATWG}: a JSON-RPC notification written over three data lines is rejoined "
     "with LF, still one JSON text.",
     ['data: {"jsonrpc":"2.0",\ndata: "method":"notifications/progress",\n'
      'data: "params":{"progressToken":"p1","progress":50,"total":100}}\n\n'],
     [{"data": '{"jsonrpc":"2.0",\n"method":"notifications/progress",\n'
               '"params":{"progressToken":"p1","progress":50,"total":100}}'}]),
    ("multibyte-chunk-boundaries", f"{WHATWG}: chunks that split next to multibyte characters (two-, three- and "
     "four-byte UTF-8) join into the same text.",
     ["data: caf", "é na", "ïve\ndata: €", "😀", "\n\n"], [{"data": "café naïve\n€😀"}]),
    # --- SEP-1858 and SEP-1335 streams
    ("sep-1858-events", f"{SEP1858}: the data-less `buffer_input` and `input_required` events of the example, each "
     f"listed with its event name and id ({FORMAT}: blocks without data are listed).",
     ["event: buffer_input\nid: 2\n\nevent: input_required\nid: 4\n\n"],
     [{"event": "buffer_input", "id": "2"}, {"event": "input_required", "id": "4"}]),
    ("sep-1858-stream", f"{SEP1858}: a whole SEP-1858 stream: `buffer_input`, an elicitation request as a standard "
     "event, `input_required`, then the server disconnects.",
     ["event: buffer_input\nid: 2\n\n", "id: 3\ndata: " + j(ELICIT) + "\n\n", "event: input_required\nid: 4\n\n"],
     [{"event": "buffer_input", "id": "2"}, {"id": "3", "data": j(ELICIT)},
      {"event": "input_required", "id": "4"}]),
    ("sep-1335-priming-and-progress", f"{SEP1335} and 003 \"Allow server to disconnect at will\": a priming block "
     "of id and retry, a progress notification, then a disconnect in the middle of the next block.",
     ["id: 1\nretry: 5000\n\n", "id: 2\ndata: " + j(PROGRESS) + "\n\nid: 3\ndata: {\"jsonrpc\""],
     [{"id": "1", "retry": 5000}, {"id": "2", "data": j(PROGRESS)}]),
]


def main() -> None:
    names = set()
    cases = []
    for name, description, chunks, expected in CASES:
        if name in names:
            sys.exit(f"sse_cases: {name}: name used twice")
        names.add(name)
        got = decode(chunks)
        if got != expected:
            sys.exit(f"sse_cases: {name}: the given chunks decode to {got!r}, the case says {expected!r}")
        stream = "".join(chunks)
        for split in chunkings(stream):
            got = decode(split)
            if got != expected:
                sys.exit(f"sse_cases: {name}: the chunks {split!r} decode to {got!r}, the case says {expected!r}")
        cases.append({
            "id": f"sse/{name}",
            "rules": [],
            "description": description,
            "op": "sse",
            "input": {"chunks": chunks},
            "expect": {"events": expected},
        })
    if not 25 <= len(cases) <= 40:
        sys.exit(f"sse_cases: {len(cases)} cases")
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    for case in cases:
        path = OUT / (case["id"].split("/", 1)[1] + ".json")
        # json escapes NULL, CR and LF; the BOM is escaped too, so that no invisible character is in the files.
        text = json.dumps(case, indent=2, ensure_ascii=False).replace("\ufeff", "\\ufeff")
        path.write_text(text + "\n", encoding="utf-8")
    print(f"sse_cases: {len(cases)} cases in {OUT}")


if __name__ == "__main__":
    main()
