//! `mrtr proxy` as a user runs it: live reports on stdout, a summary when
//! SIGTERM stops it, exit status 0, and a record that `mrtr check` finds the
//! same violation in. The proxy's own behaviour (bytes unchanged, SSE
//! streamed, bounds, concurrency) is tested in the `mrtr-proxy` crate.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpListener;
use tokio::time::timeout;

const MRTR: &str = env!("CARGO_BIN_EXE_mrtr");

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}})
}

/// A `tools/call`, or its retry echoing `state` with one answer.
fn call(id: u64, state: Option<&str>) -> Value {
    let mut params = json!({"name": "get_weather", "arguments": {"location": "Paris"}, "_meta": meta()});
    if let Some(state) = state {
        params["inputResponses"] = json!({"login": {"action": "accept", "content": {"name": "octocat"}}});
        params["requestState"] = json!(state);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// The upstream's answer: a first call asks for a login under state `s<id>`;
/// a retry with such a state completes; any other state is refused.
fn answer(request: &Value) -> Value {
    let id = &request["id"];
    let result = match request["params"]["requestState"].as_str() {
        None => json!({"resultType": "input_required", "requestState": format!("s{id}"),
            "inputRequests": {"login": {"method": "elicitation/create", "params": {"mode": "form",
                "message": "Your GitHub login?", "requestedSchema": {"type": "object",
                    "properties": {"name": {"type": "string"}}, "required": ["name"]}}}}}),
        Some(s) if s.starts_with('s') => json!({"resultType": "complete",
            "content": [{"type": "text", "text": "Sunny"}], "isError": false}),
        Some(_) => return json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "bad requestState"}}),
    };
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

async fn upstream_handle(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let bytes = req.into_body().collect().await.unwrap().to_bytes();
    let body = answer(&serde_json::from_slice(&bytes).unwrap()).to_string();
    Ok(Response::builder().header("content-type", "application/json").body(Full::new(Bytes::from(body))).unwrap())
}

/// Starts the upstream on a free loopback port.
async fn upstream() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = service_fn(upstream_handle);
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
    addr
}

/// POSTs `body` with the header fields a `2026-07-28` client mirrors; the
/// response body.
async fn post(addr: SocketAddr, body: Value) -> Value {
    let client = Client::builder(TokioExecutor::new()).build_http();
    let request = Request::post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "get_weather")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let response = timeout(Duration::from_secs(10), client.request(request)).await.unwrap().unwrap();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&bytes).unwrap()
}

fn temp_file(name: &str) -> std::path::PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    std::env::temp_dir().join(format!("mrtr-cli-{name}-{}-{nanos}.jsonl", std::process::id()))
}

/// `mrtr check` of the record (then removed) finds exactly the violation
/// `rule` at entry `index`, as the live check did.
fn rechecked_finds(record: &std::path::Path, rule: &Value, index: &Value) {
    let checked = std::process::Command::new(MRTR).arg("check").arg(record).arg("--json").output().unwrap();
    let _ = std::fs::remove_file(record);
    assert_eq!(checked.status.code(), Some(1), "{checked:?}");
    let report: Value = serde_json::from_slice(&checked.stdout).unwrap();
    let violations = report["violations"].as_array().unwrap();
    assert_eq!(violations.len(), 1, "{report}");
    assert_eq!((&violations[0]["rule"], &violations[0]["index"]), (rule, index));
}

#[tokio::test]
async fn proxy_reports_live_sums_up_on_sigterm_and_its_record_checks_the_same() {
    let up = upstream().await;
    let record = temp_file("record");
    let mut child = tokio::process::Command::new(MRTR)
        .args(["proxy", "--listen", "127.0.0.1:0", "--upstream", &format!("http://{up}/mcp"), "--json", "--record"])
        .arg(&record)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let line = timeout(Duration::from_secs(10), stderr.next_line()).await.unwrap().unwrap().unwrap();
    let addr: SocketAddr =
        line.split("listening on ").nth(1).and_then(|s| s.split(',').next()).unwrap().parse().unwrap();
    // The start-up line names the URL to give the client: the upstream's path.
    assert!(line.ends_with(&format!("(the client's URL: http://{addr}/mcp)")), "{line}");

    assert_eq!(post(addr, call(1, None)).await["result"]["requestState"], "s1");
    assert_eq!(post(addr, call(2, Some("s1"))).await["result"]["resultType"], "complete");
    post(addr, call(3, None)).await;
    assert_eq!(post(addr, call(4, Some("tampered"))).await["error"]["code"], -32602);

    let pid = child.id().unwrap().to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let out = timeout(Duration::from_secs(10), child.wait_with_output()).await.unwrap().unwrap();
    assert!(out.status.success(), "{out:?}");
    let lines: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["operation", "violation", "summary"], "{lines:?}");
    assert_eq!((&lines[0]["target"], &lines[0]["rounds"]), (&json!("get_weather"), &json!(1)));
    let (rule, index) = (&lines[1]["rule"], &lines[1]["index"]);
    assert_eq!(rule, "retry-request-state-mismatch", "{lines:?}");

    // The record, checked offline: the same violation at the same entry.
    rechecked_finds(&record, rule, index);
}

#[test]
fn proxy_refuses_bad_usage_with_status_2() {
    let out = std::process::Command::new(MRTR).args(["proxy", "--listen", "nowhere"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("--listen nowhere") && err.contains("usage: mrtr proxy"), "{err}");
}

#[test]
fn proxy_refuses_an_unknown_transport() {
    let out = std::process::Command::new(MRTR)
        .args(["proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1/mcp", "--transport", "sep-9999"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    // The value given and the known ones, so that the reader can correct it.
    let said = r#"unknown transport mode "sep-9999": the known ones are 2026-07-28, 2025-11-25, sep-1858, sep-1335"#;
    assert!(err.contains(said), "{err}");
}

/// A stdio MCP server for the stdio tests (Python's standard library only):
/// a first `tools/call` asks for a login under state `s<id>`, a retry with
/// such a state completes; it says hello on stderr and exits 3 when its stdin
/// ends.
const STDIO_SERVER: &str = r#"
import json, sys
print("server says hi", file=sys.stderr, flush=True)
for line in sys.stdin:
    request = json.loads(line)
    state = request["params"].get("requestState")
    if state is None:
        result = {"resultType": "input_required", "requestState": "s%s" % request["id"],
            "inputRequests": {"login": {"method": "elicitation/create", "params": {"mode": "form",
                "message": "Your GitHub login?", "requestedSchema": {"type": "object",
                    "properties": {"name": {"type": "string"}}, "required": ["name"]}}}}}
    else:
        result = {"resultType": "complete", "content": [{"type": "text", "text": "Sunny"}], "isError": False}
    print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}), flush=True)
sys.exit(3)
"#;

/// `mrtr proxy -- COMMAND`: the client's lines reach the stdio server and
/// the server's come back, unchanged; each is checked (a retry with a state
/// it was not given is reported on stderr, stdout being the conversation);
/// the server's stderr passes through; its exit status is the proxy's; the
/// record (0600) checks the same offline.
#[tokio::test]
async fn proxy_checks_a_stdio_server_and_exits_with_its_status() {
    use tokio::io::AsyncWriteExt;
    let record = temp_file("stdio");
    let mut child = tokio::process::Command::new(MRTR)
        .args(["proxy", "--json", "--record"])
        .arg(&record)
        .args(["--", "python3", "-c", STDIO_SERVER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut exchange = async |message: Value| {
        stdin.write_all(format!("{message}\n").as_bytes()).await.unwrap();
        let line = timeout(Duration::from_secs(10), stdout.next_line()).await.unwrap().unwrap().unwrap();
        serde_json::from_str::<Value>(&line).unwrap()
    };
    assert_eq!(exchange(call(1, None)).await["result"]["requestState"], "s1");
    assert_eq!(exchange(call(2, Some("s1"))).await["result"]["resultType"], "complete");
    exchange(call(3, None)).await;
    assert_eq!(exchange(call(4, Some("s1"))).await["result"]["resultType"], "complete");
    drop(stdin);

    let out = timeout(Duration::from_secs(10), child.wait_with_output()).await.unwrap().unwrap();
    assert_eq!(out.status.code(), Some(3), "the server's exit status: {out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.lines().any(|l| l == "server says hi"), "{stderr}");
    let reports: Vec<Value> = stderr.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let types: Vec<&str> = reports.iter().map(|l| l["type"].as_str().unwrap()).collect();
    // The broken retry is reported, and its operation still finishes.
    assert_eq!(types, ["operation", "violation", "operation", "summary"], "{stderr}");
    let (rule, index) = (&reports[1]["rule"], &reports[1]["index"]);
    assert_eq!(rule, "retry-request-state-mismatch", "{stderr}");
    assert_eq!(reports[3]["messages"], 8, "{stderr}");

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&record).unwrap().permissions().mode() & 0o777, 0o600);
    }
    rechecked_finds(&record, rule, index);
}

#[test]
fn proxy_refuses_listen_with_a_stdio_server() {
    let out = std::process::Command::new(MRTR)
        .args(["proxy", "--listen", "127.0.0.1:0", "--", "python3", "server.py"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("not a stdio server"), "{err}");
}

/// Whether process `pid` exists (`kill -0`).
fn alive(pid: &str) -> bool {
    std::process::Command::new("kill").args(["-0", pid]).stderr(Stdio::null()).status().unwrap().success()
}

/// `mrtr proxy OPTIONS -- sh -c SCRIPT`, its stdin and stdout piped (the
/// client's ends), its stderr left out.
fn stdio_proxy(options: &[&str], script: &str) -> tokio::process::Child {
    tokio::process::Command::new(MRTR)
        .arg("proxy")
        .args(options)
        .args(["--", "sh", "-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

/// Review L11: a stdio server that exits while the client keeps the proxy's
/// stdin open (as MCP clients do) ended nothing: the proxy stayed, its
/// stdout open, waiting on its own stdin. Now it relays what the server
/// wrote, closes stdout and exits with the server's status at once.
#[tokio::test]
async fn proxy_exits_with_its_stdio_server_while_the_client_keeps_stdin_open() {
    use tokio::io::AsyncReadExt;
    let script = "echo '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/bye\"}'; exit 3";
    let mut child = stdio_proxy(&[], script);
    // Held open, never written to, until the end of the test.
    let _stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut said = String::new();
    let read = timeout(Duration::from_secs(5), stdout.read_to_string(&mut said)).await;
    assert!(read.is_ok(), "the proxy's stdout still open 5 s after its server exited");
    assert_eq!(
        said, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/bye\"}\n",
        "the server's last line reaches the client"
    );
    let status = timeout(Duration::from_secs(5), child.wait()).await.expect("the proxy outlives its server").unwrap();
    assert_eq!(status.code(), Some(3), "the server's exit status: {status:?}");
}

/// Review L11: SIGTERM did not end `mrtr proxy -- CMD`. Now the server gets
/// its stdin closed and SIGTERM, and the proxy exits promptly with it gone;
/// a server that ignores both is killed after `--timeout`.
#[tokio::test]
async fn sigterm_ends_the_proxy_and_its_stdio_server() {
    let cases = [("exec sleep 1000", vec![]), ("trap '' TERM; while :; do sleep 0.2; done", vec!["--timeout", "1"])];
    for (i, (script, options)) in cases.into_iter().enumerate() {
        let pid_file = temp_file(&format!("server-pid-{i}"));
        let _ = std::fs::remove_file(&pid_file);
        let script = format!("echo $$ > '{}'; {script}", pid_file.display());
        let mut child = stdio_proxy(&options, &script);
        let _stdin = child.stdin.take().unwrap();
        let server = timeout(Duration::from_secs(10), async {
            loop {
                match std::fs::read_to_string(&pid_file) {
                    Ok(pid) if pid.ends_with('\n') => return pid.trim().to_string(),
                    _ => tokio::time::sleep(Duration::from_millis(20)).await,
                }
            }
        })
        .await
        .expect("the server started");
        assert!(alive(&server));
        let pid = child.id().unwrap().to_string();
        assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        let status = timeout(Duration::from_secs(5), child.wait()).await;
        let status = status.unwrap_or_else(|_| panic!("{script}: the proxy still runs 5 s after SIGTERM")).unwrap();
        assert!(status.code().is_some(), "{script}: the proxy ended by its own exit, not by the signal: {status:?}");
        assert!(!alive(&server), "{script}: the server outlives the proxy");
        let _ = std::fs::remove_file(&pid_file);
    }
}
