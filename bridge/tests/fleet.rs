//! One bridge, several MRTR upstreams (`--upstream NAME=URL`): two of mrtr's
//! own MRTR servers (`peers/mrtr_server.py`), named `a` and `b`, served to a
//! `2025-11-25` client as one server, over real sockets on 127.0.0.1.

mod common;

use common::{bridge, call, json_body, mrtr_server, recheck, violations, Legacy, Running};
use http::StatusCode;
use mrtr::Protocol;
use mrtr_bridge::Uri;
use serde_json::{json, Value};
use std::time::Duration;

fn capabilities() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}})
}

fn tool(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {response}"))
}

/// A bridge to the upstreams `named` (name, URL), in that order.
async fn fleet(named: &[(&str, &str)]) -> Running {
    let upstreams: Vec<(String, Uri)> = named.iter().map(|(n, u)| ((*n).to_string(), u.parse().unwrap())).collect();
    bridge(named[0].1, |c| {
        c.upstreams = upstreams;
        c.timeout = Duration::from_secs(5);
        c.ui = Some("127.0.0.1:0".parse().unwrap());
    })
    .await
}

/// A plain request's JSON answer.
async fn ask(client: &Legacy, id: u64, method: &str, params: Value) -> (StatusCode, Value) {
    let response = client.post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
    let status = response.status();
    (status, json_body(response).await)
}

/// The names of a merged list's items.
fn names(list: &Value, key: &str) -> Vec<String> {
    list["result"][key].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
}

/// The upstream requests of `method` in the upstream side's record, by the
/// URL they went to.
fn sent_to(record: &std::path::Path, method: &str) -> Vec<String> {
    let text = std::fs::read_to_string(record).unwrap();
    let lines = text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok());
    let sent = lines.filter(|l| l["from"] == "client" && l["http"]["body"]["method"] == method);
    sent.filter_map(|l| l["http"]["url"].as_str().map(String::from)).collect()
}

/// Two upstreams as one: initialize unites them; the tool and prompt lists
/// are merged with every name prefixed; calls go to the upstream their
/// prefix names and complete with their rounds; a resource read goes by its
/// template prefix (both list `notes://{day}`: the first upstream given owns
/// it); an unknown prefix is refused with `usage-unknown-handle`. One
/// upstream-side monitor (and live page) holds both upstreams' operations;
/// both sides compliant, live and recorded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_upstreams_serve_as_one() {
    let (a, b) = (mrtr_server().await, mrtr_server().await);
    let mut bridge = fleet(&[("a", &a.url), ("b", &b.url)]).await;
    let mut client = Legacy::new(&bridge.url());
    let init = client.initialize(capabilities()).await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
    assert_eq!(init["serverInfo"]["name"], "mrtr-bridge", "the bridge's own, not one upstream's");
    assert!(init["capabilities"]["tools"].is_object(), "{init}");

    let (status, tools) = ask(&client, 1, "tools/list", json!({"cursor": "ignored"})).await;
    assert_eq!(status, StatusCode::OK);
    let names = names(&tools, "tools");
    let half = names.len() / 2;
    assert!(half >= 6 && names.len() == 2 * half, "every tool twice: {names:?}");
    assert!(names[..half].iter().all(|n| n.starts_with("a__")) && names[half..].iter().all(|n| n.starts_with("b__")));
    assert!(names.contains(&"a__get_weather".to_string()) && names.contains(&"b__book_trip".to_string()));
    assert!(tools["result"].get("nextCursor").is_none(), "one page");
    let (_, prompts) = ask(&client, 2, "prompts/list", json!({})).await;
    assert_eq!(self::names(&prompts, "prompts"), ["a__review", "b__review"]);

    let (weather, asked) = call(&client, &tool(3, "a__get_weather", json!({"location": "Paris"}))).await;
    assert_eq!((text(&weather), asked.len()), ("Paris: 22 degrees celsius", 1));
    let (trip, asked) = call(&client, &tool(4, "b__book_trip", json!({"destination": "Rome"}))).await;
    assert_eq!((text(&trip), asked.len()), ("Rome on 2026-12-01, seat 12A", 2));
    let review = json!({"jsonrpc": "2.0", "id": 5, "method": "prompts/get",
        "params": {"name": "b__review", "arguments": {"pr": "12"}}});
    let (review, _) = call(&client, &review).await;
    assert_eq!(review["result"]["messages"][0]["content"]["text"], "Review 12: tests");

    let (_, templates) = ask(&client, 6, "resources/templates/list", json!({})).await;
    let listed = templates["result"]["resourceTemplates"].as_array().unwrap();
    assert_eq!(listed.len(), 2, "{templates}");
    assert!(listed.iter().all(|t| t["uriTemplate"] == "notes://{day}"), "URIs unchanged");
    let read = json!({"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": "notes://today"}});
    let (notes, _) = call(&client, &read).await;
    assert_eq!(notes["result"]["contents"][0]["text"], "notes on mrtr");

    let (status, unknown) = ask(&client, 8, "tools/call", json!({"name": "c__get_weather", "arguments": {}})).await;
    assert_eq!((status, &unknown["id"]), (StatusCode::BAD_REQUEST, &json!(8)));
    assert_eq!(unknown["error"]["data"]["rule"], "usage-unknown-handle", "{unknown}");
    let (_, unlisted) = ask(&client, 9, "resources/read", json!({"uri": "file:///nowhere"})).await;
    assert_eq!(unlisted["error"]["data"]["rule"], "usage-unknown-handle", "{unlisted}");

    // One upstream-side page for both upstreams: the operations of a and b.
    let ui = Legacy::new(&format!("http://{}/upstream/state.json", bridge.ui.expect("the pages' address")));
    let (status, page) = ui.get().await;
    let upstream_side: Value = serde_json::from_str(&page).unwrap();
    assert_eq!((status, upstream_side["operations"].as_array().map(Vec::len)), (StatusCode::OK, Some(4)), "{page}");
    bridge.stop().await;
    let upstream_record = &bridge.records.1;
    let reads = sent_to(upstream_record, "resources/read");
    assert!(!reads.is_empty() && reads.iter().all(|u| *u == a.url), "the tie goes to a: {reads:?}");
    assert!(sent_to(upstream_record, "tools/call").contains(&b.url), "b__book_trip went to b");
    assert_eq!(violations(&bridge.client), Vec::<String>::new());
    assert_eq!(violations(&bridge.upstream), Vec::<String>::new());
    assert_eq!(recheck(&bridge.records.0, Protocol::V2025_11_25), Vec::<String>::new());
    assert_eq!(recheck(upstream_record, Protocol::V2026_07_28), Vec::<String>::new());
}

/// An upstream down at start is left out of initialize and of the lists
/// (said on stderr) while the other serves, a URI read before any listing
/// included; a call to it ends with a clear error instead of hanging.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_down_at_start_is_left_out() {
    let live = mrtr_server().await;
    let nowhere = format!("http://127.0.0.1:{}/mcp", common::free_port());
    let mut bridge = fleet(&[("down", &nowhere), ("up", &live.url)]).await;
    let mut client = Legacy::new(&bridge.url());
    let init = client.initialize(capabilities()).await;
    assert!(init["capabilities"]["tools"].is_object(), "the live one's: {init}");
    let (status, tools) = ask(&client, 1, "tools/list", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let listed = names(&tools, "tools");
    assert!(!listed.is_empty() && listed.iter().all(|n| n.starts_with("up__")), "{listed:?}");
    let (weather, _) = call(&client, &tool(2, "up__get_weather", json!({"location": "Oslo"}))).await;
    assert_eq!(text(&weather), "Oslo: 22 degrees celsius");
    // A URI read before any listing: the resource lists are fetched first.
    let read = json!({"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "notes://today"}});
    let (notes, _) = call(&client, &read).await;
    assert_eq!(notes["result"]["contents"][0]["text"], "notes on mrtr", "{notes}");
    let (down, asked) = call(&client, &tool(3, "down__get_weather", json!({"location": "Oslo"}))).await;
    assert!(asked.is_empty() && down["error"]["data"]["rule"].is_string(), "{down}");
    bridge.stop().await;
    assert_eq!(violations(&bridge.client), Vec::<String>::new());
    assert_eq!(violations(&bridge.upstream), Vec::<String>::new());
    assert_eq!(recheck(&bridge.records.0, Protocol::V2025_11_25), Vec::<String>::new());
    assert_eq!(recheck(&bridge.records.1, Protocol::V2026_07_28), Vec::<String>::new());
}

/// An MRTR upstream whose `tools/list` never ends: page `n` (the cursor) has
/// the tool `tn` and names page `n + 1` next. Its `server/discover` gives
/// instructions; anything else is answered with an empty result.
async fn endless_upstream() -> String {
    use http_body_util::{BodyExt, Full};
    use hyper::service::service_fn;
    use hyper_util::rt::TokioIo;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let service = service_fn(|req: http::Request<hyper::body::Incoming>| async move {
                let body = req.into_body().collect().await.unwrap().to_bytes();
                let message: Value = serde_json::from_slice(&body).unwrap();
                let result = match message["method"].as_str() {
                    Some("server/discover") => json!({"supportedVersions": ["2026-07-28"],
                        "capabilities": {"tools": {}, "completions": {}}, "instructions": "pages forever"}),
                    Some("tools/list") => {
                        let n: u64 = message["params"]["cursor"].as_str().map_or(0, |c| c.parse().unwrap());
                        json!({"tools": [{"name": format!("t{n}"), "inputSchema": {"type": "object"}}],
                            "nextCursor": (n + 1).to_string()})
                    }
                    _ => json!({"completion": {"values": ["x"]}}),
                };
                let mut result = result;
                result["resultType"] = "complete".into();
                let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
                let response = http::Response::builder().header("content-type", "application/json");
                Ok::<_, std::convert::Infallible>(
                    response.body(Full::new(bytes::Bytes::from(reply.to_string()))).unwrap(),
                )
            });
            tokio::spawn(hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service));
        }
    });
    url
}

/// A list is followed through its pages, at most 16 per upstream; the
/// instructions are prefixed with their upstream's name and the
/// capabilities united; a request the bridge neither merges nor routes by
/// name goes to the first upstream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_are_followed_up_to_the_bound_and_other_requests_go_first() {
    let (endless, server) = (endless_upstream().await, mrtr_server().await);
    let mut bridge = fleet(&[("pages", &endless), ("mrtr", &server.url)]).await;
    let mut client = Legacy::new(&bridge.url());
    let init = client.initialize(capabilities()).await;
    assert_eq!(init["instructions"], "pages: pages forever", "{init}");
    assert!(init["capabilities"]["completions"].is_object() && init["capabilities"]["prompts"].is_object(), "{init}");
    let (_, tools) = ask(&client, 1, "tools/list", json!({})).await;
    let listed = names(&tools, "tools");
    let paged: Vec<&String> = listed.iter().filter(|n| n.starts_with("pages__")).collect();
    assert_eq!(paged.len(), 16, "{listed:?}");
    assert_eq!((paged[0].as_str(), paged[15].as_str()), ("pages__t0", "pages__t15"));
    assert!(listed.contains(&"mrtr__get_weather".to_string()));
    let params = json!({"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "pr", "value": "1"}});
    let (status, completed) = ask(&client, 2, "completion/complete", params).await;
    assert_eq!((status, &completed["result"]["completion"]["values"]), (StatusCode::OK, &json!(["x"])), "{completed}");
    bridge.stop().await;
    assert_eq!(sent_to(&bridge.records.1, "completion/complete"), [endless]);
    assert_eq!(sent_to(&bridge.records.1, "tools/list").len(), 17, "16 pages of one, 1 of the other");
    assert_eq!(violations(&bridge.client), Vec::<String>::new());
    assert_eq!(violations(&bridge.upstream), Vec::<String>::new());
}
