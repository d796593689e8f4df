//! The three benchmark messages, built deterministically: shared by this
//! crate's `validate` bench and the C binding's FFI bench (by `#[path]`), so
//! both measure the same bytes.
#![allow(dead_code)]

use serde_json::{json, Map, Value};

/// A deterministic, base64-looking opaque state of exactly `len` bytes.
fn opaque_state(len: usize, seed: u64) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            // xorshift64
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ALPHABET[(x % 64) as usize] as char
        })
        .collect()
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": { "form": {}, "url": {} },
            "sampling": {},
            "roots": { "listChanged": true }
        }
    })
}

fn form_elicitation(message: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "resolution": {
                        "type": "string",
                        "title": "Resolution",
                        "enum": ["fixed", "wontfix", "duplicate", "by-design"]
                    },
                    "reason": { "type": "string", "minLength": 1, "maxLength": 500 },
                    "hours": { "type": "number", "minimum": 0, "maximum": 1000 },
                    "notify": { "type": "boolean", "default": true },
                    "due": { "type": "string", "format": "date" }
                },
                "required": ["resolution", "reason"]
            }
        }
    })
}

fn sampling(question: &str) -> Value {
    json!({
        "method": "sampling/createMessage",
        "params": {
            "messages": [
                { "role": "user", "content": { "type": "text", "text": question } }
            ],
            "modelPreferences": {
                "hints": [{ "name": "claude-3-sonnet" }],
                "intelligencePriority": 0.8,
                "speedPriority": 0.5
            },
            "systemPrompt": "You are a helpful assistant.",
            "maxTokens": 100
        }
    })
}

fn url_elicitation(i: usize) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "mode": "url",
            "message": "Please sign in to Azure DevOps so that the tool can update work items for you",
            "url": format!("https://auth.example.com/authorize?session={i:04}")
        }
    })
}

fn roots() -> Value {
    json!({ "method": "roots/list", "params": {} })
}

/// (a) A client retry of `tools/call`, ~0.6 KB.
pub fn retry_request() -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {
            "name": "update_work_item",
            "arguments": { "id": 4711, "state": "Resolved", "project": "contoso" },
            "_meta": meta(),
            "inputResponses": {
                "resolution": {
                    "action": "accept",
                    "content": { "resolution": "fixed", "reason": "Patched in build 2026.7.3", "notify": true }
                },
                "summary": {
                    "role": "assistant",
                    "content": { "type": "text", "text": "The capital of France is Paris." },
                    "model": "claude-3-sonnet-20240307"
                }
            },
            "requestState": opaque_state(48, 1)
        }
    })
}

/// (b) An `input_required` result with three input requests, ~1 KB.
pub fn input_required_small() -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 2,
        "result": {
            "resultType": "input_required",
            "inputRequests": {
                "resolution": form_elicitation("Resolving a Bug needs a resolution and a reason"),
                "summary": sampling("Summarise the linked pull request in one sentence."),
                "workspace": roots()
            },
            "requestState": opaque_state(160, 2)
        }
    })
}

/// (c) An `input_required` result with 64 mixed input requests and a 16 KiB state.
pub fn input_required_large() -> Value {
    let mut requests = Map::new();
    for i in 0..64 {
        let request = match i % 4 {
            0 => form_elicitation(&format!("Field group {i} needs your input")),
            1 => sampling(&format!("Question {i}: what is the capital of France?")),
            2 => url_elicitation(i),
            _ => roots(),
        };
        requests.insert(format!("input_{i:02}"), request);
    }
    json!({
        "jsonrpc": "2.0",
        "id": "req-9f2c",
        "result": {
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": opaque_state(16 << 10, 3)
        }
    })
}
