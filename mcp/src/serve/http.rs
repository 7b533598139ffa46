//! `zot-mcp serve --http ADDR`: the MCP server over Streamable HTTP, on a
//! loopback address, behind a bearer token.
//!
//! rmcp's Streamable HTTP service answers at `/mcp` (one MCP session per
//! client, each with its own `Bridge` to the one extension); axum carries
//! it, and the guard checks every request first.

use std::future::{Future, IntoFuture};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::ExitCode;
use std::sync::Arc;

use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::guard::{self, Guard};
use super::handler::Bridge;

/// The path MCP clients post to (the one the MCP Inspector and the
/// specification's examples use).
const PATH: &str = "/mcp";

/// Parses `--http`'s value: `IP:PORT`, or `localhost:PORT` for 127.0.0.1.
pub fn parse_addr(s: &str) -> Result<SocketAddr, String> {
    if let Some(port) = s.strip_prefix("localhost:") {
        let port = port.parse().map_err(|_| format!("bad port in {s:?}"))?;
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    s.parse()
        .map_err(|_| format!("{s:?} is not IP:PORT (for example 127.0.0.1:8765)"))
}

/// A listening socket and its token, before the extension is loaded (so a
/// taken port or a bad address fails at once).
pub struct HttpServer {
    listener: TcpListener,
    addr: SocketAddr,
    token: String,
    token_from_env: bool,
}

impl HttpServer {
    /// Listens on `addr`, which must be a loopback address: the token
    /// travels in clear over plain HTTP, and the tools run as this user.
    pub async fn bind(addr: SocketAddr) -> Result<Self, String> {
        if !addr.ip().is_loopback() {
            return Err(format!(
                "refusing to serve on {addr}: not a loopback address \
                 (use 127.0.0.1:PORT or [::1]:PORT; put a TLS proxy in front \
                 to reach it from other machines)"
            ));
        }
        let (token, token_from_env) = guard::token()?;
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot read the listening address: {e}"))?;
        Ok(Self {
            listener,
            addr,
            token,
            token_from_env,
        })
    }

    /// Serves until Ctrl-C or SIGTERM (exit 0) or until the extension
    /// disconnects (the line `gone` yields on stderr, exit 1).
    pub async fn serve(self, bridge: Bridge, gone: impl Future<Output = String>) -> ExitCode {
        let stop = CancellationToken::new();
        let config = StreamableHttpServerConfig {
            // Ends the open event streams, so the graceful shutdown below
            // does not wait for clients to hang up.
            cancellation_token: stop.child_token(),
            ..StreamableHttpServerConfig::default()
        };
        let sessions = Arc::new(LocalSessionManager::default());
        let mcp = StreamableHttpService::new(move || Ok(bridge.clone()), sessions, config);
        let guard = Arc::new(Guard::new(self.token.clone(), self.addr));
        let app = Router::new()
            .route_service(PATH, mcp)
            .layer(middleware::from_fn(move |req: Request, next: Next| {
                let guard = guard.clone();
                async move { checked(&guard, req, next).await }
            }));
        self.announce();
        let shutdown = stop.clone();
        let server = tokio::spawn(
            axum::serve(self.listener, app)
                .with_graceful_shutdown(async move { shutdown.cancelled().await })
                .into_future(),
        );
        let code = tokio::select! {
            signal = interrupted() => {
                eprintln!("zot-mcp: {signal}: stopping");
                ExitCode::SUCCESS
            }
            line = gone => {
                eprintln!("zot-mcp: {line}");
                ExitCode::FAILURE
            }
        };
        stop.cancel();
        let _ = server.await;
        code
    }

    /// The URL and the token on stderr, as the MCP Inspector prints its own.
    fn announce(&self) {
        eprintln!(
            "zot-mcp: serving MCP over Streamable HTTP at http://{}{PATH}",
            self.addr
        );
        if self.token_from_env {
            eprintln!("zot-mcp: token: the value of {}", guard::TOKEN_VAR);
        } else {
            eprintln!("zot-mcp: token: {}", self.token);
        }
        eprintln!(
            "zot-mcp: clients send it as \"Authorization: Bearer TOKEN\"; Ctrl-C stops the server"
        );
    }
}

async fn checked(guard: &Guard, req: Request, next: Next) -> Response {
    if let Err(refusal) = guard.check(req.headers()) {
        return guard::answer(refusal);
    }
    let delete = req.method() == Method::DELETE;
    let mut response = next.run(req).await;
    // rmcp answers a session's end 202; clients (the Python SDK) expect 200
    // or 204 and warn otherwise.
    if delete && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    response
}

/// The name of the signal that asked the server to stop.
#[cfg(unix)]
async fn interrupted() -> &'static str {
    use tokio::signal::unix::{signal, SignalKind};
    let Ok(mut term) = signal(SignalKind::terminate()) else {
        let _ = tokio::signal::ctrl_c().await;
        return "SIGINT";
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => "SIGINT",
        _ = term.recv() => "SIGTERM",
    }
}

#[cfg(not(unix))]
async fn interrupted() -> &'static str {
    let _ = tokio::signal::ctrl_c().await;
    "Ctrl-C"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_parse_with_localhost_as_127_0_0_1() {
        assert_eq!(
            parse_addr("localhost:8765").unwrap(),
            "127.0.0.1:8765".parse().unwrap()
        );
        assert_eq!(parse_addr("[::1]:9").unwrap(), "[::1]:9".parse().unwrap());
        let bad = parse_addr("8765").unwrap_err();
        assert!(bad.contains("IP:PORT"), "{bad}");
        assert!(parse_addr("localhost:x").is_err());
    }
}
