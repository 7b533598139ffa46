//! A live model over the OpenAI-compatible chat completions API
//! (`--model-url`, `--provider`), against mock servers on 127.0.0.1
//! (live_model/mock.rs), plain and TLS, streamed and whole: the model's
//! tool call reaches the extension, the result goes back to the model, the
//! model's last answer is the assistant's text; and every way a request
//! can fail ends the turn with one line saying which.

mod common;
#[path = "live_model/mock.rs"]
mod mock;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use mock::Answer;
use serde_json::{json, Value};
use zot_host::model::{LiveModel, ModelEvent, Settings, Timeouts};

fn calculator(env: &Env) -> std::path::PathBuf {
    env.ext(
        "calc",
        json!({
            "on_ack": [
                {"send": {"type": "register_tool", "name": "add", "description": "Adds two integers",
                          "schema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}},
                ready(),
            ],
            "on": {"tool_call:add": text_result("5")},
        }),
    )
}

/// Settings for tests: no real pause between attempts.
fn settings() -> Settings {
    Settings {
        backoff: Duration::from_millis(1),
        ..Settings::default()
    }
}

fn model(url: &str, settings: Settings) -> LiveModel {
    LiveModel::with(url, "mock-1", Some("sk-test".into()), settings).unwrap()
}

/// What the model's observer saw: the streamed text, and each retry's
/// reason.
#[derive(Default, Clone)]
struct Watched {
    text: Arc<Mutex<String>>,
    retries: Arc<Mutex<Vec<String>>>,
}

fn watch(m: &LiveModel) -> Watched {
    let w = Watched::default();
    let w2 = w.clone();
    m.observe(Arc::new(move |e| match e {
        ModelEvent::Text(t) => w2.text.lock().unwrap().push_str(t),
        ModelEvent::Retrying { why, .. } => w2.retries.lock().unwrap().push(why.to_owned()),
        ModelEvent::End => {}
    }));
    w
}

async fn run_live(model: LiveModel) -> (Run, Arc<LiveModel>) {
    let mut env = Env::new();
    let ext = calculator(&env);
    let model = Arc::new(model);
    env.model = Some(model.clone());
    let run = env
        .run(&[ext], json!({"steps": [{"prompt": "what is 2 + 3?"}]}))
        .await;
    (run, model)
}

fn errors(run: &Run) -> Vec<String> {
    run.kinds("status")
        .into_iter()
        .filter(|o| o["level"] == "error")
        .filter_map(|o| o["text"].as_str().map(str::to_owned))
        .collect()
}

/// The one error line of a run whose model request failed.
fn the_error(run: &Run) -> String {
    let errors = errors(run);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(!errors[0].contains('\n'), "one line: {}", errors[0]);
    errors[0].clone()
}

/// The transcript, without what differs between two runs of the same
/// session (exit statuses and times).
fn transcript(run: &Run) -> Vec<Value> {
    run.obs
        .iter()
        .filter(|o| o["kind"] != "exited" && o["kind"] != "session")
        .cloned()
        .collect()
}

fn assert_the_sum_is_five(run: &Run) {
    assert_eq!(
        run.strs("assistant", "text"),
        ["Let me add them.", "The sum is 5."],
        "{:?}",
        run.obs
    );
    let calls = run.sent("calc", "tool_call");
    assert_eq!(calls.len(), 1, "{:?}", run.obs);
    assert_eq!(calls[0]["args"], json!({"a": 2, "b": 3}));
}

#[tokio::test]
async fn a_tool_call_of_the_model_reaches_the_extension_and_its_result_goes_back() {
    let mock = mock::serve(mock::calculator(64)).await;
    let m = model(&mock.url, settings());
    let watched = watch(&m);
    let (run, _) = run_live(m).await;

    assert_the_sum_is_five(&run);
    // Streamed: the text arrived piece by piece before each turn ended.
    assert_eq!(
        *watched.text.lock().unwrap(),
        "Let me add them.The sum is 5."
    );
    let seen = mock.seen();
    assert_eq!(seen.len(), 2, "one request per model step");
    let first = &seen[0];
    assert_eq!(first.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(first.header("accept"), Some("text/event-stream"));
    assert_eq!(first.body["stream"], true);
    assert_eq!(first.body["model"], "mock-1");
    assert_eq!(first.body["messages"][0]["role"], "system");
    assert_eq!(
        first.body["messages"][1],
        json!({"role": "user", "content": "what is 2 + 3?"})
    );
    // The extension's tool is offered with its schema, beside the built-ins.
    let tools = first.body["tools"].as_array().unwrap();
    let add = tools
        .iter()
        .find(|t| t["function"]["name"] == "add")
        .expect("add is offered to the model");
    assert_eq!(add["function"]["description"], "Adds two integers");
    assert_eq!(add["function"]["parameters"]["required"], json!(["a", "b"]));
    assert!(tools.iter().any(|t| t["function"]["name"] == "bash"));
    // The second step carries the call and the extension's result.
    let second = &seen[1].body["messages"];
    let n = second.as_array().unwrap().len();
    assert_eq!(second[n - 2]["tool_calls"][0]["id"], "call_7");
    assert_eq!(
        second[n - 1],
        json!({"role": "tool", "tool_call_id": "call_7", "content": "5"})
    );
    // hello_ack names the model that answers.
    let ack = run.sent("calc", "hello_ack");
    assert_eq!(ack[0]["model"], "mock-1");
    assert_eq!(ack[0]["provider"], "openai-compatible");
}

/// Whole or streamed, in HTTP chunks of any size (cutting lines, `\r\n`
/// pairs and JSON anywhere), and whatever the server sends back whatever
/// was asked: the transcript is the same.
#[tokio::test]
async fn streamed_and_whole_replies_make_the_same_transcript() {
    let whole = {
        let mock = mock::serve(mock::calculator(64)).await;
        let m = model(
            &mock.url,
            Settings {
                stream: false,
                ..settings()
            },
        );
        let watched = watch(&m);
        let (run, _) = run_live(m).await;
        assert_the_sum_is_five(&run);
        let seen = mock.seen();
        assert_eq!(seen[0].body["stream"], false);
        assert_eq!(seen[0].header("accept"), Some("application/json"));
        assert_eq!(*watched.text.lock().unwrap(), "", "nothing streamed");
        transcript(&run)
    };
    for piece in [1, 2, 7, 4096] {
        let mock = mock::serve(mock::calculator(piece)).await;
        let (run, _) = run_live(model(&mock.url, settings())).await;
        assert_eq!(transcript(&run), whole, "streamed in {piece}-byte chunks");
    }
    // A server that streams when asked not to, and one that does not
    // stream when asked to.
    let always_sse: mock::Handler = Arc::new(|_, body| Answer::Sse {
        events: mock::chunks(&mock::calculator_message(body)),
        piece: 5,
    });
    let never_sse: mock::Handler = Arc::new(|_, body| {
        Answer::Json(
            200,
            vec![],
            mock::completion(mock::calculator_message(body)),
        )
    });
    for (handler, stream) in [(always_sse, false), (never_sse, true)] {
        let mock = mock::serve(handler).await;
        let (run, _) = run_live(model(
            &mock.url,
            Settings {
                stream,
                ..settings()
            },
        ))
        .await;
        assert_eq!(transcript(&run), whole, "asked stream: {stream}");
    }
}

#[tokio::test]
async fn a_stream_cut_halfway_ends_the_turn_with_an_error_saying_so() {
    let cut: mock::Handler = Arc::new(|_, body| {
        let events = mock::chunks(&mock::calculator_message(body));
        // Cut inside the first tool call's event, after all the text.
        let bytes = events
            .iter()
            .take_while(|e| !e.contains("tool_calls"))
            .map(|e| "data: \r\n\r\n".len() + e.len())
            .sum::<usize>()
            + 20;
        Answer::SseCut { events, bytes }
    });
    let mock = mock::serve(cut).await;
    let m = model(&mock.url, settings());
    let watched = watch(&m);
    let (run, m) = run_live(m).await;
    let e = the_error(&run);
    assert!(
        e.starts_with(&format!(
            "model request to {} failed: the reply broke off",
            mock.url
        )),
        "{e}"
    );
    // What came before the cut was shown; nothing ran; the cut reply was
    // not requested again (its text was already shown).
    assert_eq!(*watched.text.lock().unwrap(), "Let me add them.");
    assert!(run.sent("calc", "tool_call").is_empty());
    assert_eq!(mock.seen().len(), 1);
    assert_eq!(m.last_failure(), Some(e));
}

#[tokio::test]
async fn a_rate_limit_a_reset_and_a_server_error_are_retried() {
    let mock = mock::serve(mock::after(vec![
        Answer::Json(
            429,
            vec![("retry-after", "0".into())],
            json!({"error": {"message": "Rate limit reached", "type": "requests"}}),
        ),
        Answer::Close,
        Answer::Json(503, vec![], json!({"error": {"message": "overloaded"}})),
    ]))
    .await;
    let m = model(
        &mock.url,
        Settings {
            retries: 3,
            ..settings()
        },
    );
    let watched = watch(&m);
    let (run, m) = run_live(m).await;
    assert_the_sum_is_five(&run);
    assert!(errors(&run).is_empty(), "{:?}", errors(&run));
    assert_eq!(
        mock.seen().len(),
        5,
        "three failed attempts, then two steps"
    );
    let retries = watched.retries.lock().unwrap().clone();
    assert_eq!(retries.len(), 3, "{retries:?}");
    assert_eq!(
        retries[0],
        "HTTP 429 Too Many Requests: Rate limit reached (retry after 0 s)"
    );
    assert!(
        retries[1].starts_with("connection reset before the reply"),
        "{retries:?}"
    );
    assert_eq!(retries[2], "HTTP 503 Service Unavailable: overloaded");
    assert_eq!(m.last_failure(), None);
}

#[tokio::test]
async fn retries_end_and_a_long_retry_after_is_not_waited_for() {
    let limited = |wait: &str| -> mock::Handler {
        let wait = wait.to_owned();
        Arc::new(move |_, _| {
            Answer::Json(
                429,
                vec![("retry-after", wait.clone())],
                json!({"error": {"message": "Rate limit reached for requests"}}),
            )
        })
    };
    let mock = mock::serve(limited("0")).await;
    let (run, _) = run_live(model(
        &mock.url,
        Settings {
            retries: 1,
            ..settings()
        },
    ))
    .await;
    assert_eq!(
        the_error(&run),
        format!(
            "model request to {} failed: HTTP 429 Too Many Requests: Rate limit reached for \
             requests (retry after 0 s); gave up after 2 attempts",
            mock.url
        )
    );
    assert_eq!(mock.seen().len(), 2);

    let mock = mock::serve(limited("3600")).await;
    let (run, _) = run_live(model(&mock.url, settings())).await;
    let e = the_error(&run);
    assert!(
        e.ends_with("(retry after 3600 s); not retried: the wait is longer than 60 s"),
        "{e}"
    );
    assert_eq!(mock.seen().len(), 1);
}

#[tokio::test]
async fn a_server_that_stalls_is_given_up_on_by_name() {
    let short = Timeouts {
        first_byte: Duration::from_millis(200),
        idle: Duration::from_millis(200),
        ..Timeouts::default()
    };
    let mock = mock::serve(Arc::new(|_, _| Answer::Stall)).await;
    let (run, _) = run_live(model(
        &mock.url,
        Settings {
            timeouts: short,
            ..settings()
        },
    ))
    .await;
    assert_eq!(
        the_error(&run),
        format!(
            "model request to {} failed: first-byte timeout: no reply within 0.2 s",
            mock.url
        )
    );

    let first = mock::chunks(&json!({"content": "Hmm"}))[1].clone();
    let mock = mock::serve(Arc::new(move |_, _| Answer::SseStall {
        first: first.clone(),
    }))
    .await;
    let m = model(
        &mock.url,
        Settings {
            timeouts: short,
            ..settings()
        },
    );
    let watched = watch(&m);
    let (run, _) = run_live(m).await;
    assert!(
        the_error(&run).ends_with("idle timeout: the reply stopped for 0.2 s mid-way"),
        "{:?}",
        errors(&run)
    );
    assert_eq!(*watched.text.lock().unwrap(), "Hmm");
    // Neither is tried again: the wait was the timeout's.
    assert_eq!(mock.seen().len(), 1);
}

/// The provider's own words, on one line, with what may help.
#[tokio::test]
async fn provider_errors_are_one_readable_line() {
    let cases = [
        (
            401,
            json!({"error": {"message": "Incorrect API key provided: sk-test.", "type": "invalid_request_error", "code": "invalid_api_key"}}),
            "HTTP 401 Unauthorized: Incorrect API key provided: sk-test. (the key is $ZOT_TEST_KEY's)",
        ),
        (
            404,
            json!({"error": {"message": "The model `mock-1` does not exist or you do not have access to it.", "code": "model_not_found"}}),
            "HTTP 404 Not Found: The model `mock-1` does not exist or you do not have access to it. \
             (is the model name `mock-1` right, and the URL the API's base, e.g. .../v1?)",
        ),
        (
            400,
            json!({"error": {"message": "Invalid 'messages[1].content':\n  string too long.", "param": "messages"}}),
            "HTTP 400 Bad Request: Invalid 'messages[1].content': string too long.",
        ),
        (
            422,
            json!({"detail": "Extra inputs are not permitted"}),
            "HTTP 422 Unprocessable Entity: Extra inputs are not permitted",
        ),
    ];
    for (status, body, want) in cases {
        let mock = mock::serve(Arc::new(move |_, _| {
            Answer::Json(status, vec![], body.clone())
        }))
        .await;
        let s = Settings {
            key_env: Some("ZOT_TEST_KEY".into()),
            ..settings()
        };
        let (run, _) = run_live(model(&mock.url, s)).await;
        assert_eq!(
            the_error(&run),
            format!("model request to {} failed: {want}", mock.url)
        );
        assert_eq!(mock.seen().len(), 1, "{status} is not retried");
    }
    // An error inside a stream.
    let mock = mock::serve(Arc::new(|_, _| Answer::Sse {
        events: vec![json!({"error": {"message": "Provider returned error", "metadata": {"raw": "upstream overloaded"}}}).to_string()],
        piece: 64,
    }))
    .await;
    let (run, _) = run_live(model(&mock.url, settings())).await;
    assert!(
        the_error(&run).ends_with(
            "failed: the API answered with an error: Provider returned error: upstream overloaded"
        ),
        "{:?}",
        errors(&run)
    );
}

#[tokio::test]
async fn an_unreachable_model_ends_the_turn_with_an_error_saying_so() {
    // A port nothing listens on: bound, then closed.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/v1");
    let (run, _) = run_live(model(
        &url,
        Settings {
            retries: 1,
            ..settings()
        },
    ))
    .await;
    let e = the_error(&run);
    assert!(
        e.starts_with(&format!(
            "model request to {url} failed: cannot connect: 127.0.0.1:{port}"
        )) && e.ends_with("; gave up after 2 attempts"),
        "{e}"
    );
    assert!(run.sent("calc", "tool_call").is_empty());
}

// ---- TLS ----

fn ca_file(env: &Env, pem: &str) -> std::path::PathBuf {
    let p = env.tmp.path().join("ca.pem");
    std::fs::write(&p, pem).unwrap();
    p
}

#[tokio::test]
async fn https_with_the_servers_ca_works() {
    let pki = mock::pki();
    let mock = mock::serve_tls(mock::calculator(7), pki.localhost.clone()).await;
    let env = Env::new();
    let s = Settings {
        ca_file: Some(ca_file(&env, &pki.ca_pem)),
        ..settings()
    };
    let (run, _) = run_live(model(&mock.url, s)).await;
    assert_the_sum_is_five(&run);
    assert_eq!(
        mock.seen()[0].header("authorization"),
        Some("Bearer sk-test")
    );
}

#[tokio::test]
async fn https_refuses_a_certificate_for_another_host_or_from_an_unknown_ca() {
    let pki = mock::pki();
    let env = Env::new();
    let with_ca = || Settings {
        ca_file: Some(ca_file(&env, &pki.ca_pem)),
        ..settings()
    };
    let mock = mock::serve_tls(mock::calculator(64), pki.elsewhere.clone()).await;
    let (run, _) = run_live(model(&mock.url, with_ca())).await;
    assert_eq!(
        the_error(&run),
        format!(
            "model request to {} failed: TLS: the server's certificate is not valid for \
             localhost (refused)",
            mock.url
        )
    );
    assert!(mock.seen().is_empty(), "no request was sent");

    let mock = mock::serve_tls(mock::calculator(64), pki.localhost.clone()).await;
    let (run, _) = run_live(model(&mock.url, settings())).await;
    assert_eq!(
        the_error(&run),
        format!(
            "model request to {} failed: TLS: the certificate of localhost is not signed by a \
             trusted authority (refused; if it is a private or self-signed certificate, pass \
             its CA with --model-ca-file PEM)",
            mock.url
        )
    );
    assert!(mock.seen().is_empty(), "no request was sent");

    // https:// to a server that answers in plain HTTP.
    let plain = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "https://127.0.0.1:{}/v1",
        plain.local_addr().unwrap().port()
    );
    tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        while let Ok((mut tcp, _)) = plain.accept().await {
            let _ = tcp.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n").await;
        }
    });
    let (run, _) = run_live(model(&url, with_ca())).await;
    assert!(
        the_error(&run).contains("TLS: 127.0.0.1 does not answer in TLS (a plain http:// server?)"),
        "{:?}",
        errors(&run)
    );
}

#[test]
fn a_ca_file_that_is_not_pem_is_refused_at_start() {
    let env = Env::new();
    let p = ca_file(&env, "not a certificate");
    let e = LiveModel::with(
        "https://localhost:1/v1",
        "m",
        None,
        Settings {
            ca_file: Some(p.clone()),
            ..Settings::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        e,
        format!(
            "--model-ca-file {}: no certificate in it (expected PEM: -----BEGIN CERTIFICATE-----)",
            p.display()
        )
    );
}

// ---- a live session exported and replayed ----

/// A live session driven by the model, exported from `inspect` / `dev`,
/// replays with the scripted model and the same transcript: the model's
/// turns are recorded as `replies`.
#[tokio::test]
async fn a_live_session_with_a_model_exports_a_script_that_replays_the_same() {
    use zot_host::live::{Live, LiveOptions};
    let env = Env::new();
    let mock = mock::serve(mock::calculator(3)).await;
    let ext = calculator(&env);
    let live = Live::open(LiveOptions {
        explicit: vec![ext.clone()],
        cwd: env.cwd.clone(),
        zot_home: env.zot_home.clone(),
        no_discovery: true,
        header: serde_json::Map::new(),
        model: Some(Arc::new(LiveModel::new(&mock.url, "mock-1", None).unwrap())),
    })
    .await
    .unwrap();
    let step = json!({"prompt": "what is 2 + 3?"});
    live.run(step.as_object().unwrap().clone()).await.unwrap();
    let script = live.export();
    let (observed, dropped) = live.transcript();
    assert_eq!(dropped, 0);
    live.close().await;

    assert_eq!(script["model"], "mock-1", "{script:#}");
    let steps = script["steps"].as_array().unwrap();
    assert_eq!(
        steps[0]["replies"][0]["tool_calls"][0]["args"],
        json!({"a": 2, "b": 3}),
        "{script:#}"
    );
    assert_eq!(
        steps[0]["replies"][1]["text"], "The sum is 5.",
        "{script:#}"
    );
    assert_eq!(steps[1]["prompt"], "what is 2 + 3?");

    env.run(&[ext], script.clone())
        .await
        .assert_replays(&observed, &script);
}

// ---- the command line ----

/// `zot-host run` with a live model; `extra` args, `envs` set.
async fn cli_run(
    env: &Env,
    ext: &std::path::Path,
    extra: &[&str],
    envs: &[(&str, &str)],
) -> std::process::Output {
    let script = env.tmp.path().join("s.json");
    std::fs::write(
        &script,
        json!({"steps": [{"prompt": "2 + 3?"}]}).to_string(),
    )
    .unwrap();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_zot-host"));
    cmd.args(["run", "--no-ext", "--script"])
        .arg(&script)
        .arg("--ext")
        .arg(ext)
        .arg("--zot-home")
        .arg(&env.zot_home)
        .arg("--cwd")
        .arg(&env.cwd)
        .args(extra)
        .envs(envs.iter().copied());
    cmd.output().await.unwrap()
}

/// The command line: the flags reach the session, and a URL the host
/// cannot use is refused before anything starts, saying why.
#[tokio::test]
async fn zot_host_run_takes_the_model_flags() {
    let env = Env::new();
    let mock = mock::serve(mock::calculator(64)).await;
    let ext = calculator(&env);
    let keyed = [("ZOT_TEST_MODEL_KEY", "sk-from-env")];
    for stream in [true, false] {
        let mut args = vec![
            "--model-url",
            &mock.url,
            "--model",
            "m",
            "--model-key-env",
            "ZOT_TEST_MODEL_KEY",
        ];
        if !stream {
            args.push("--model-no-stream");
        }
        let out = cli_run(&env, &ext, &args, &keyed).await;
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("The sum is 5."), "{stdout}");
    }
    let seen = mock.seen();
    assert_eq!(seen[0].header("authorization"), Some("Bearer sk-from-env"));
    assert_eq!(
        [
            seen[0].body["stream"].clone(),
            seen[2].body["stream"].clone()
        ],
        [json!(true), json!(false)]
    );

    // A preset with its URL overridden: the key from its variable.
    let out = cli_run(
        &env,
        &ext,
        &[
            "--provider",
            "groq",
            "--model-url",
            &mock.url,
            "--model",
            "m",
        ],
        &[("GROQ_API_KEY", "gsk-test")],
    )
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        mock.seen()[4].header("authorization"),
        Some("Bearer gsk-test")
    );

    for (args, want) in [
        (
            vec!["--model-url", "ftp://api.example.com/v1", "--model", "m"],
            "--model-url ftp://api.example.com/v1: expected an http:// or https:// URL",
        ),
        (
            vec!["--model-url", &mock.url],
            "--model-url needs --model NAME",
        ),
        (
            vec![
                "--provider",
                "openai",
                "--model",
                "m",
                "--model-key-env",
                "ZOT_TEST_UNSET",
            ],
            "$ZOT_TEST_UNSET, which is unset",
        ),
        (
            vec![
                "--provider",
                "openai",
                "--model",
                "m",
                "--model-ca-file",
                "/nonexistent.pem",
            ],
            "--model-ca-file /nonexistent.pem: cannot read it",
        ),
    ] {
        let out = cli_run(&env, &ext, &args, &[("OPENAI_API_KEY", "sk")]).await;
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[tokio::test]
async fn a_failed_model_request_fails_the_run_with_the_providers_message() {
    let env = Env::new();
    let ext = calculator(&env);
    let mock = mock::serve(Arc::new(|_, _| {
        Answer::Json(
            401,
            vec![],
            json!({"error": {"message": "Invalid API Key"}}),
        )
    }))
    .await;
    let out = cli_run(&env, &ext, &["--model-url", &mock.url, "--model", "m"], &[]).await;
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "zot-host: model request to {} failed: HTTP 401 Unauthorized: Invalid API Key",
            mock.url
        )),
        "{stderr}"
    );
}

/// The model key stays with the host: an extension's environment has
/// neither its variable nor those of --hide-env, and keeps the rest.
#[tokio::test]
async fn extensions_do_not_inherit_the_model_key() {
    let env = Env::new();
    let ext = calculator(&env);
    // The extension writes its environment to a file, then runs as usual.
    let manifest_path = ext.join("extension.json");
    let mut manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest_path).unwrap()).unwrap();
    let args = manifest["args"].clone();
    manifest["exec"] = json!("sh");
    manifest["args"] = json!([
        "-c",
        format!(
            "env > seen-env.txt; exec python3 {} {}",
            args[0].as_str().unwrap(),
            args[1].as_str().unwrap()
        ),
    ]);
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    let mock = mock::serve(mock::calculator(64)).await;
    let out = cli_run(
        &env,
        &ext,
        &[
            "--model-url",
            &mock.url,
            "--model",
            "m",
            "--model-key-env",
            "ZOT_TEST_MODEL_KEY",
            "--hide-env",
            "ZOT_TEST_OTHER_SECRET",
        ],
        &[
            ("ZOT_TEST_MODEL_KEY", "sk-secret"),
            ("ZOT_TEST_OTHER_SECRET", "s3"),
            ("ZOT_TEST_PLAIN", "kept"),
        ],
    )
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        mock.seen()[0].header("authorization"),
        Some("Bearer sk-secret")
    );
    let seen = std::fs::read_to_string(ext.join("seen-env.txt")).unwrap();
    assert!(seen.contains("ZOT_TEST_PLAIN=kept"), "{seen}");
    assert!(!seen.contains("ZOT_TEST_MODEL_KEY"), "{seen}");
    assert!(!seen.contains("sk-secret"), "{seen}");
    assert!(!seen.contains("ZOT_TEST_OTHER_SECRET"), "{seen}");
}

/// `zot-host dev` prints the model's text as it streams, line by line, and
/// not again when the turn ends.
#[tokio::test]
async fn dev_shows_the_streamed_text_as_it_comes() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let env = Env::new();
    let ext = calculator(&env);
    let gate = Arc::new(tokio::sync::Notify::new());
    let g = gate.clone();
    let calc = mock::calculator(64);
    let mock = mock::serve(Arc::new(move |n, body| {
        if n > 0 {
            return calc(n, body);
        }
        // The first line, then the rest once the test has seen it printed.
        let mut call = mock::calculator_message(body);
        call["content"] = json!("");
        let mut rest = vec![mock::delta(json!({"content": "I will add them."}))];
        rest.extend(mock::chunks(&call).into_iter().skip(1));
        Answer::SseGated {
            first: vec![mock::delta(json!({"content": "Let me think.\n"}))],
            rest,
            gate: g.clone(),
        }
    }))
    .await;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_zot-host"))
        .arg("dev")
        .arg(&ext)
        .args(["--model-url", &mock.url, "--model", "m", "--zot-home"])
        .arg(&env.zot_home)
        .arg("--cwd")
        .arg(&env.cwd)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"prompt what is 2 + 3?\n").await.unwrap();
    drop(stdin);
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut out = Vec::new();
    let read = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if line == "zot › Let me think." {
                // Shown while the reply is still under way.
                gate.notify_one();
            }
            out.push(line);
        }
    };
    // A guard against a hang, not a timing assertion.
    tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .expect("zot-host dev ended");
    let status = child.wait().await.unwrap();
    let out = out.join("\n");
    assert!(status.success(), "{out}");
    assert!(
        out.contains("zot › Let me think.\n      I will add them.\n"),
        "{out}"
    );
    assert_eq!(out.matches("Let me think.").count(), 1, "{out}");
    assert_eq!(out.matches("zot › The sum is 5.").count(), 1, "{out}");
}
