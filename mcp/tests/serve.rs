//! `zot-mcp serve` end to end: rmcp's client talks MCP to `zot-mcp serve
//! DIR`, where DIR holds the conformance extension (this test binary, when
//! started with `--extension`).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{ExitCode, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use rmcp::model::{CallToolRequest, CallToolRequestParam, ClientRequest, GetPromptRequestParam};
use rmcp::service::{PeerRequestOptions, RoleClient, RunningService};
use rmcp::ServiceExt;
use serde_json::{json, Value};

/// A safety net so a broken build fails instead of hanging.
const STUCK: Duration = Duration::from_secs(30);

struct Served {
    client: RunningService<RoleClient, ()>,
    stderr: Receiver<String>,
    child: tokio::process::Child,
    _home: tempfile::TempDir,
}

fn extension_dir(home: &Path) -> std::path::PathBuf {
    let dir = home.join("ext");
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = json!({
        "name": "conformance",
        "exec": std::env::current_exe().unwrap(),
        "args": ["--extension"],
    });
    std::fs::write(dir.join("extension.json"), manifest.to_string()).unwrap();
    dir
}

async fn serve() -> Served {
    let home = tempfile::tempdir().unwrap();
    let dir = extension_dir(home.path());
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_zot-mcp"))
        .arg("serve")
        .arg(&dir)
        .env("ZOT_HOME", home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let (tx, stderr) = channel();
    let err = child.stderr.take().unwrap().into_owned_fd().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(std::fs::File::from(err)).lines() {
            let Ok(line) = line else { break };
            eprintln!("serve: {line}");
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let io = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let client = tokio::time::timeout(STUCK, ().serve(io))
        .await
        .expect("initialize in time")
        .expect("initialize");
    Served {
        client,
        stderr,
        child,
        _home: home,
    }
}

impl Served {
    fn stderr_until(&self, needle: &str) -> String {
        loop {
            let line = self.stderr.recv_timeout(STUCK).expect("stderr line");
            if line.contains(needle) {
                return line;
            }
        }
    }

    async fn call(&self, name: &str, args: Value) -> Value {
        let result = self
            .client
            .peer()
            .call_tool(CallToolRequestParam {
                name: name.to_owned().into(),
                arguments: args.as_object().cloned(),
            })
            .await
            .unwrap();
        serde_json::to_value(result).unwrap()
    }

    async fn close(mut self) -> Option<i32> {
        self.client.cancel().await.unwrap();
        let status = tokio::time::timeout(STUCK, self.child.wait()).await;
        status.unwrap().unwrap().code()
    }
}

async fn lists_tools_with_schemas_and_commands_as_prompts() {
    let s = serve().await;
    let info = s.client.peer().peer_info().unwrap();
    assert_eq!(info.server_info.name, "conformance");
    let tools = s.client.peer().list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    assert!(
        names.contains(&"add") && names.contains(&"sleep"),
        "{names:?}"
    );
    assert!(!names.contains(&"ask"), "interactive tools are not offered");
    let add = tools.iter().find(|t| t.name == "add").unwrap();
    assert_eq!(add.description.as_deref(), Some("Add two integers"));
    assert_eq!(add.input_schema["required"], json!(["a", "b"]));
    let output = add.output_schema.as_ref().unwrap();
    assert_eq!(output["properties"]["sum"]["type"], "integer");
    let prompts = s.client.peer().list_all_prompts().await.unwrap();
    assert!(prompts.iter().any(|p| p.name == "Greet"), "{prompts:?}");
    let greet = s
        .client
        .peer()
        .get_prompt(GetPromptRequestParam {
            name: "Greet".into(),
            arguments: json!({"args": "bob"}).as_object().cloned(),
        })
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&greet.messages).unwrap(),
        json!([{"role": "user", "content": {"type": "text", "text": "Hello, bob"}}])
    );
    let panel = s
        .client
        .peer()
        .get_prompt(GetPromptRequestParam {
            name: "panel".into(),
            arguments: None,
        })
        .await
        .unwrap_err();
    assert!(panel.to_string().contains("no MCP prompt form"), "{panel}");
    assert_eq!(s.close().await, Some(0));
}

async fn calls_map_content_structured_content_and_errors() {
    let s = serve().await;
    let add = s.call("add", json!({"a": 2, "b": 3})).await;
    assert_eq!(add["structuredContent"], json!({"sum": 5}));
    assert_eq!(add["content"][0]["text"], "sum=5");
    assert_eq!(add["isError"], false);
    let fail = s.call("fail", json!({})).await;
    assert_eq!(fail["isError"], true);
    let image = s.call("image", json!({})).await;
    assert_eq!(image["content"][1]["type"], "image");
    assert_eq!(image["content"][1]["mimeType"], "image/png");
    let compose = s.call("compose", json!({"text": "hi"})).await;
    assert_eq!(compose["isError"], false, "{compose}");
    let unknown = s
        .client
        .peer()
        .call_tool(CallToolRequestParam {
            name: "nope".into(),
            arguments: None,
        })
        .await
        .unwrap_err();
    assert!(
        unknown.to_string().contains("unknown tool \"nope\""),
        "{unknown}"
    );
    assert_eq!(s.close().await, Some(0));
}

async fn cancelled_reaches_the_extension_as_tool_cancel() {
    let s = serve().await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(CallToolRequestParam {
        name: "sleep".into(),
        arguments: json!({"ms": 600000}).as_object().cloned(),
    }));
    let handle = s
        .client
        .peer()
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    // A call sent after it and answered: by then the sleep call has been
    // handed to the extension (each goes out as soon as the host has it).
    let add = s.call("add", json!({"a": 1, "b": 1})).await;
    assert_eq!(add["structuredContent"], json!({"sum": 2}));
    let _ = handle.cancel(Some("test".into())).await;
    // The extension's note on tool_cancel proves the way through.
    s.stderr_until("cancelled 600000");
    let add = s.call("add", json!({"a": 2, "b": 2})).await;
    assert_eq!(add["structuredContent"], json!({"sum": 4}), "still serving");
    assert_eq!(s.close().await, Some(0));
}

fn a_folder_that_is_no_extension_is_one_line_and_status_1() {
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_zot-mcp"))
        .arg("serve")
        .arg(home.path().join("missing"))
        .env("ZOT_HOME", home.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing on the wire");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("zot-mcp: "), "{err}");
    assert!(err.contains("missing"), "names the folder: {err}");
}

/// `zot-mcp serve --http 127.0.0.1:0 DIR` with the token `secret`, and the
/// address it printed.
struct HttpServed {
    child: std::process::Child,
    addr: String,
    _home: tempfile::TempDir,
}

fn serve_http() -> HttpServed {
    let home = tempfile::tempdir().unwrap();
    let dir = extension_dir(home.path());
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_zot-mcp"))
        .args(["serve", "--http", "127.0.0.1:0"])
        .arg(&dir)
        .env("ZOT_HOME", home.path())
        .env("ZOT_MCP_TOKEN", "secret")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    // The URL is printed once the extension is ready.
    let addr = loop {
        let line = lines.next().expect("the URL on stderr").unwrap();
        eprintln!("serve --http: {line}");
        if let Some(url) = line.split("at http://").nth(1) {
            break url.trim_end_matches("/mcp").to_owned();
        }
    };
    std::thread::spawn(move || {
        lines
            .map_while(Result::ok)
            .for_each(|l| eprintln!("serve --http: {l}"))
    });
    HttpServed {
        child,
        addr,
        _home: home,
    }
}

impl HttpServed {
    /// Posts an MCP initialize request, with `auth` as the Authorization
    /// header when given; the whole answer (status line, headers, body).
    fn initialize(&self, auth: Option<&str>) -> String {
        use std::io::{Read, Write};
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}})
        .to_string();
        let auth = auth
            .map(|a| format!("Authorization: {a}\r\n"))
            .unwrap_or_default();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{auth}Content-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        let mut stream = std::net::TcpStream::connect(&self.addr).unwrap();
        stream.set_read_timeout(Some(STUCK)).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    }

    /// SIGTERM, then the exit status.
    fn stop(mut self) -> Option<i32> {
        let pid = self.child.id().to_string();
        let kill = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status();
        assert!(kill.unwrap().success());
        self.child.wait().unwrap().code()
    }
}

fn http_refuses_a_missing_or_wrong_token_with_401() {
    let s = serve_http();
    for auth in [None, Some("Bearer wrong"), Some("secret")] {
        let answer = s.initialize(auth);
        assert!(answer.starts_with("HTTP/1.1 401"), "{auth:?}: {answer}");
        assert!(
            answer
                .to_ascii_lowercase()
                .contains("www-authenticate: bearer"),
            "{answer}"
        );
    }
    let answer = s.initialize(Some("Bearer secret"));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("mcp-session-id:"),
        "{answer}"
    );
    assert!(answer.contains(r#""name":"conformance""#), "{answer}");
    assert_eq!(s.stop(), Some(0), "SIGTERM stops the server cleanly");
}

fn http_refuses_a_non_loopback_address_before_starting_anything() {
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_zot-mcp"))
        .args(["serve", "--http", "0.0.0.0:0"])
        .arg(home.path().join("missing"))
        .env("ZOT_HOME", home.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("0.0.0.0:0: not a loopback address"), "{err}");
    assert!(!err.contains("missing"), "refused before loading: {err}");
}

fn block_on<F: std::future::Future<Output = ()>>(f: fn() -> F) -> impl Fn() {
    move || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
            .block_on(f())
    }
}

/// A named test: each runs in its own runtime.
type Test = Box<dyn Fn()>;

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("--extension") {
        return match conformance_rust::extension().run_blocking() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("[conformance] {e}");
                ExitCode::FAILURE
            }
        };
    }
    let tests: Vec<(&str, Test)> = vec![
        (
            "lists_tools_with_schemas_and_commands_as_prompts",
            Box::new(block_on(lists_tools_with_schemas_and_commands_as_prompts)),
        ),
        (
            "calls_map_content_structured_content_and_errors",
            Box::new(block_on(calls_map_content_structured_content_and_errors)),
        ),
        (
            "cancelled_reaches_the_extension_as_tool_cancel",
            Box::new(block_on(cancelled_reaches_the_extension_as_tool_cancel)),
        ),
        (
            "a_folder_that_is_no_extension_is_one_line_and_status_1",
            Box::new(a_folder_that_is_no_extension_is_one_line_and_status_1),
        ),
        (
            "http_refuses_a_missing_or_wrong_token_with_401",
            Box::new(http_refuses_a_missing_or_wrong_token_with_401),
        ),
        (
            "http_refuses_a_non_loopback_address_before_starting_anything",
            Box::new(http_refuses_a_non_loopback_address_before_starting_anything),
        ),
    ];
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let (mut passed, mut failed) = (0, 0);
    for (name, test) in tests {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(&test)).is_ok() {
            println!("test {name} ... ok");
            passed += 1;
        } else {
            println!("test {name} ... FAILED");
            failed += 1;
        }
    }
    let status = if failed == 0 { "ok" } else { "FAILED" };
    println!("\ntest result: {status}. {passed} passed; {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
