//! The inspector's HTTP API and WebSocket feed, and the embedded page.
//!
//! - `GET /` the page; `/app.js`, `/app.css` its assets (built by
//!   `host/inspect-ui/build.mjs` into `host/inspect-ui/dist/`);
//! - `GET /api/state`, `/api/frames?from=N`, `/api/frame/{n}`,
//!   `/api/transcript` (as `zot-host run --json` prints it),
//!   `/api/observations` (with times), `/api/export`, `/api/log/{ext}`,
//!   `/api/schema`;
//! - `POST /api/step` (a script step), `/api/key`, `/api/cancel`;
//! - `GET /ws`: frames, observations, stderr lines and state changes as
//!   they happen.
//!
//! Every request goes through [`super::guard::Guard`] first.

use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use super::guard::Guard;
use crate::live::feed::{FeedEvent, ModelNote};
use crate::live::{Live, LiveError};
use crate::session::steps::StepOutput;

const INDEX: &str = include_str!("../../inspect-ui/dist/index.html");
const APP_JS: &str = include_str!("../../inspect-ui/dist/app.js");
const APP_CSS: &str = include_str!("../../inspect-ui/dist/app.css");

/// What the page may load and talk to: only this server.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                   img-src 'self' data:; connect-src 'self'; base-uri 'none'; \
                   form-action 'none'; frame-ancestors 'none'";

#[derive(Clone)]
struct App {
    live: Arc<Live>,
    guard: Arc<Guard>,
}

/// The inspector's routes over a live session.
pub fn router(live: Arc<Live>, guard: Guard) -> Router {
    let app = App {
        live,
        guard: Arc::new(guard),
    };
    Router::new()
        .route("/", get(index))
        .route(
            "/app.js",
            get(|| async { asset("text/javascript", APP_JS) }),
        )
        .route("/app.css", get(|| async { asset("text/css", APP_CSS) }))
        .route("/api/state", get(state))
        .route("/api/frames", get(frames))
        .route("/api/frame/{n}", get(frame))
        .route("/api/transcript", get(transcript))
        .route("/api/observations", get(observations))
        .route("/api/export", get(export))
        .route("/api/log/{ext}", get(log))
        .route("/api/schema", get(schema))
        .route("/api/step", post(step))
        .route("/api/key", post(key))
        .route("/api/cancel", post(cancel))
        .route("/ws", get(ws))
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found\n") })
        .layer(middleware::from_fn_with_state(app.clone(), guarded))
        // A step may carry a whole frame's worth of arguments.
        .layer(DefaultBodyLimit::max(
            2 * zot_protocol::limits::MAX_FRAME_BYTES,
        ))
        .with_state(app)
}

async fn guarded(State(app): State<App>, req: Request, next: Next) -> Response {
    if let Err((code, msg)) = app.guard.check(req.headers(), req.uri().query()) {
        return (code, msg).into_response();
    }
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

fn asset(mime: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, mime)], body).into_response()
}

async fn index(State(app): State<App>) -> Response {
    let page = INDEX.replace("%TOKEN%", app.guard.token());
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response()
}

/// The protocol's JSON Schema of host frames (the examples of the Events
/// tab are made from it), from the one definition in `zot-protocol`.
async fn schema() -> Response {
    static SCHEMA: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let text = SCHEMA.get_or_init(|| zot_protocol::schema::host_to_ext().as_value().to_string());
    asset_owned("application/json", text.clone())
}

async fn state(State(app): State<App>) -> Json<Value> {
    Json(app.live.state())
}

#[derive(serde::Deserialize)]
struct From {
    #[serde(default)]
    from: u64,
}

async fn frames(State(app): State<App>, Query(q): Query<From>) -> Json<Value> {
    let frames = app.live.feed().frames_from(q.from);
    Json(json!(frames.iter().map(|f| &**f).collect::<Vec<_>>()))
}

async fn frame(State(app): State<App>, Path(n): Path<u64>) -> Response {
    match app.live.feed().frame(n) {
        Some(f) => asset_owned("application/json", f.text.to_string()),
        None => (
            StatusCode::GONE,
            format!(
                "frame {n} is not kept (the inspector keeps the last {} frames, {} MiB)\n",
                crate::live::feed::MAX_FRAMES,
                crate::live::feed::MAX_FRAME_BYTES >> 20
            ),
        )
            .into_response(),
    }
}

fn asset_owned(mime: &'static str, body: String) -> Response {
    ([(header::CONTENT_TYPE, mime)], body).into_response()
}

async fn transcript(State(app): State<App>) -> Json<Value> {
    let (obs, dropped) = app.live.transcript();
    Json(json!({ "observations": obs, "dropped": dropped }))
}

async fn observations(State(app): State<App>, Query(q): Query<From>) -> Json<Value> {
    let (obs, _) = app.live.feed().observations();
    Json(json!(obs
        .iter()
        .filter(|o| o.n >= q.from)
        .map(|o| &**o)
        .collect::<Vec<_>>()))
}

async fn export(State(app): State<App>) -> Response {
    let text = serde_json::to_string_pretty(&app.live.export()).unwrap_or_default();
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"session.json\"",
            ),
        ],
        text + "\n",
    )
        .into_response()
}

async fn log(State(app): State<App>, Path(ext): Path<String>) -> Json<Value> {
    Json(json!(app.live.feed().log(&ext)))
}

fn refused(e: &LiveError) -> Response {
    let code = match e {
        LiveError::Busy(_) => StatusCode::CONFLICT,
        LiveError::Invalid(_) => StatusCode::BAD_REQUEST,
        LiveError::Closed => StatusCode::GONE,
    };
    (code, Json(json!({ "error": e.to_string() }))).into_response()
}

fn output(out: StepOutput) -> Value {
    match out {
        StepOutput::None => Value::Null,
        StepOutput::Tool(t) => json!({
            "tool": {
                "text": t.joined_text(),
                "content": t.content,
                "is_error": t.is_error,
                "status": t.status,
                "structured_content": t.structured_content.map(|s| s.to_value()),
            }
        }),
        StepOutput::Verdict(v) => json!({
            "verdict": {
                "event": v.event,
                "verdict": if v.blocked.is_some() { "block" } else { "allow" },
                "reason": v.blocked,
                "result": v.result,
            }
        }),
    }
}

async fn step(State(app): State<App>, Json(body): Json<Value>) -> Response {
    let Value::Object(step) = body else {
        return refused(&LiveError::Invalid(
            "a step is a JSON object, e.g. {\"command\": \"/help\"}".into(),
        ));
    };
    let feed = app.live.feed();
    let (frames, obs) = (feed.next_frame(), feed.next_observation());
    match app.live.run(step).await {
        Ok(out) => Json(json!({
            "output": output(out),
            "frames": [frames, feed.next_frame()],
            "observations": [obs, feed.next_observation()],
        }))
        .into_response(),
        Err(e) => refused(&e),
    }
}

#[derive(serde::Deserialize)]
struct Key {
    key: String,
    #[serde(default)]
    text: String,
}

async fn key(State(app): State<App>, Json(k): Json<Key>) -> Response {
    match app.live.key(&k.key, &k.text).await {
        Ok(()) => Json(json!({})).into_response(),
        Err(e) => refused(&e),
    }
}

async fn cancel(State(app): State<App>) -> Json<Value> {
    Json(json!({ "cancelled": app.live.cancel() }))
}

async fn ws(State(app): State<App>, upgrade: WebSocketUpgrade) -> Response {
    upgrade.on_upgrade(move |socket| pump(app, socket))
}

fn message(ev: &FeedEvent) -> Value {
    match ev {
        FeedEvent::Frame(f) => json!({ "t": "frame", "f": &**f }),
        FeedEvent::Obs(o) => json!({ "t": "obs", "n": o.n, "ts": o.ts, "o": o.o }),
        FeedEvent::Log { ext, text } => json!({ "t": "log", "ext": ext, "text": text }),
        FeedEvent::State => json!({ "t": "state" }),
        FeedEvent::Model(ModelNote::Text(text)) => json!({ "t": "model", "text": &**text }),
        FeedEvent::Model(ModelNote::Retrying(why)) => json!({ "t": "model", "retrying": &**why }),
        FeedEvent::Model(ModelNote::End) => json!({ "t": "model", "end": true }),
    }
}

/// Sends the feed to one page until it goes away. A page that falls too far
/// behind is told so and fetches what it missed.
async fn pump(app: App, mut socket: WebSocket) {
    let mut rx = app.live.feed().subscribe();
    loop {
        tokio::select! {
            ev = rx.recv() => {
                let msg = match ev {
                    Ok(ev) => message(&ev),
                    Err(RecvError::Lagged(n)) => json!({ "t": "lagged", "missed": n }),
                    Err(RecvError::Closed) => break,
                };
                if socket.send(Message::Text(msg.to_string().into())).await.is_err() {
                    break;
                }
            }
            m = socket.recv() => match m {
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                Some(Ok(_)) => {}
            },
        }
    }
}
