//! The command-line options of a live model, shared by `run`, `inspect`
//! and `dev`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::{providers, LiveModel, Settings, Timeouts, DEFAULT_KEY_ENV, DEFAULT_MAX_STEPS};

/// Where `--help` lists them.
const HEADING: &str = "Live model";

/// The live model options.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ModelArgs {
    /// Drive turns with a live model of this provider (its API URL and key
    /// variable; see the README for the table); without it or --model-url
    /// the scripted model answers.
    #[arg(help_heading = HEADING, long = "provider", value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(providers::names()))]
    pub provider: Option<String>,
    // The doc comment is the CLI help, where a URL is plain text.
    #[allow(rustdoc::bare_urls)]
    /// Drive turns with a live model at this OpenAI-compatible API base URL
    /// (e.g. http://127.0.0.1:11434/v1 for ollama, https://api.openai.com/v1);
    /// with --provider, instead of the provider's URL.
    #[arg(help_heading = HEADING, long = "model-url", value_name = "URL")]
    pub url: Option<String>,
    /// The model name sent to the API (required with --provider or --model-url).
    #[arg(help_heading = HEADING, long = "model", value_name = "NAME")]
    pub model: Option<String>,
    /// The environment variable holding the API key, sent as a bearer token
    /// [default: the provider's, else OPENAI_API_KEY; unset: no key is sent,
    /// as local servers expect]. Extensions do not inherit it.
    #[arg(help_heading = HEADING, long = "model-key-env", value_name = "VAR")]
    pub key_env: Option<String>,
    /// Certificates (PEM) to trust for an https:// URL besides the built-in
    /// roots: a private CA, or a server's self-signed certificate.
    #[arg(help_heading = HEADING, long = "model-ca-file", value_name = "PEM")]
    pub ca_file: Option<PathBuf>,
    /// Ask for whole replies instead of streamed ones (the model's text then
    /// shows when its turn ends).
    #[arg(help_heading = HEADING, long = "model-no-stream")]
    pub no_stream: bool,
    /// New attempts after a connection failure, a reset, HTTP 408, 409, 429
    /// or 5xx (after the provider's retry-after, else 0.5 s, 1 s, 2 s...).
    #[arg(help_heading = HEADING, long = "model-retries", value_name = "N", default_value_t = 2)]
    pub retries: u32,
    /// Seconds to connect (TCP and TLS).
    #[arg(help_heading = HEADING, long = "model-connect-timeout", value_name = "SECS", default_value = "10", value_parser = parse_secs)]
    pub connect_timeout: Duration,
    /// Seconds from the request to the first byte of the reply.
    #[arg(help_heading = HEADING, long = "model-first-byte-timeout", value_name = "SECS", default_value = "300", value_parser = parse_secs)]
    pub first_byte_timeout: Duration,
    /// Seconds the reply may pause mid-way.
    #[arg(help_heading = HEADING, long = "model-idle-timeout", value_name = "SECS", default_value = "120", value_parser = parse_secs)]
    pub idle_timeout: Duration,
    /// The most model steps one prompt may take.
    #[arg(help_heading = HEADING, long = "model-max-steps", value_name = "N", default_value_t = DEFAULT_MAX_STEPS)]
    pub max_steps: u32,
    /// Do not pass this environment variable to extensions (repeatable),
    /// like the model key's.
    #[arg(help_heading = HEADING, long = "hide-env", value_name = "VAR")]
    pub hide_env: Vec<String>,
}

/// A positive number of seconds (fractions allowed).
fn parse_secs(s: &str) -> Result<Duration, String> {
    match s.parse::<f64>() {
        Ok(n) if n.is_finite() && n > 0.0 && n < 1e9 => Ok(Duration::from_secs_f64(n)),
        _ => Err(format!("expected a positive number of seconds, got {s}")),
    }
}

impl ModelArgs {
    /// The live model these options ask for, `None` for the scripted one;
    /// an error names the option at fault. The key's variable and those of
    /// `--hide-env` are withheld from the extensions spawned from now on.
    pub fn resolve(&self) -> Result<Option<Arc<LiveModel>>, String> {
        let model = self.resolve_in(|var| std::env::var(var).ok())?;
        let key_env = model.as_ref().and_then(|m| m.settings.key_env.as_ref());
        for var in self.hide_env.iter().chain(key_env) {
            crate::process::spawn::withhold_env(var);
        }
        Ok(model)
    }

    /// [`ModelArgs::resolve`] with `env` for the environment.
    fn resolve_in(
        &self,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Arc<LiveModel>>, String> {
        let preset = self.provider.as_deref().and_then(providers::find);
        let url = match (&self.url, preset) {
            (Some(url), _) => url.clone(),
            (None, Some(p)) => p.url.to_owned(),
            (None, None) if self.model.is_some() => {
                return Err("--model NAME needs --provider NAME or --model-url URL".into())
            }
            (None, None) => return Ok(None),
        };
        let what = match preset {
            Some(p) => format!("--provider {}", p.name),
            None => "--model-url".to_owned(),
        };
        let model = self
            .model
            .clone()
            .ok_or_else(|| format!("{what} needs --model NAME (the model the API should run)"))?;
        let key_env = match (&self.key_env, preset) {
            (Some(v), _) => Some(v.clone()),
            (None, Some(p)) => p.key_env.map(str::to_owned),
            (None, None) => Some(DEFAULT_KEY_ENV.to_owned()),
        };
        let key = key_env.as_deref().and_then(&env).filter(|k| !k.is_empty());
        // A remote provider refuses every request without its key: say so
        // now rather than at the first prompt.
        if let (Some(p), None, None, Some(var)) = (preset, &self.url, &key, &key_env) {
            if p.key_env.is_some() {
                return Err(format!(
                    "{what}: the API key is read from ${var}, which is unset or empty \
                     (set it, or name another variable with --model-key-env)"
                ));
            }
        }
        let settings = Settings {
            stream: !self.no_stream,
            timeouts: Timeouts {
                connect: self.connect_timeout,
                first_byte: self.first_byte_timeout,
                idle: self.idle_timeout,
            },
            retries: self.retries,
            ca_file: self.ca_file.clone(),
            max_steps: self.max_steps.max(1),
            provider: preset.map_or("openai-compatible", |p| p.name).to_owned(),
            key_env,
            ..Settings::default()
        };
        let model = LiveModel::with(&url, &model, key, settings).map_err(|e| {
            match e.starts_with("--") {
                true => e,
                false => format!("{what} {url}: {e}"),
            }
        })?;
        Ok(Some(Arc::new(model)))
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        model: ModelArgs,
    }

    /// Resolves in an environment where only `TEST_KEY` and the presets'
    /// variables are set (to `sk-<VAR>`).
    fn resolve(args: &[&str]) -> Result<Option<Arc<LiveModel>>, String> {
        let cli = Cli::try_parse_from(std::iter::once("x").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        cli.model.resolve_in(|var| {
            (var == "TEST_KEY" || providers::PROVIDERS.iter().any(|p| p.key_env == Some(var)))
                .then(|| format!("sk-{var}"))
        })
    }

    #[test]
    fn each_preset_resolves_to_its_url_and_key_variable() {
        for p in providers::PROVIDERS {
            let m = resolve(&["--provider", p.name, "--model", "m"])
                .unwrap_or_else(|e| panic!("{}: {e}", p.name))
                .unwrap();
            assert_eq!(m.endpoint.to_string(), p.url, "{}", p.name);
            assert_eq!(m.provider(), p.name);
            assert_eq!(m.settings.key_env.as_deref(), p.key_env);
            assert_eq!(m.key, p.key_env.map(|v| format!("sk-{v}")));
            assert_eq!(m.endpoint.is_tls(), m.tls.is_some());
        }
        let m = resolve(&[
            "--provider",
            "openai",
            "--model",
            "m",
            "--model-key-env",
            "TEST_KEY",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(m.key.as_deref(), Some("sk-TEST_KEY"));
        let m = resolve(&["--model-url", "http://127.0.0.1:9/v1", "--model", "m"])
            .unwrap()
            .unwrap();
        assert_eq!(
            (m.provider(), m.settings.key_env.as_deref()),
            ("openai-compatible", Some("OPENAI_API_KEY"))
        );
        assert!(m.settings.stream);
        let m = resolve(&["--provider", "ollama", "--model", "llama3.2"])
            .unwrap()
            .unwrap();
        assert_eq!(m.settings.key_env, None, "a local server takes no key");
        let m = resolve(&[
            "--provider",
            "groq",
            "--model-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--model-no-stream",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(
            (
                m.endpoint.to_string().as_str(),
                m.settings.key_env.as_deref()
            ),
            ("http://127.0.0.1:9/v1", Some("GROQ_API_KEY"))
        );
        assert!(!m.settings.stream);
    }

    #[test]
    fn missing_or_wrong_options_are_named() {
        assert!(resolve(&[]).unwrap().is_none());
        let e = resolve(&["--provider", "openai"]).unwrap_err();
        assert!(e.contains("--provider openai needs --model NAME"), "{e}");
        let e = resolve(&["--model", "m"]).unwrap_err();
        assert!(
            e.contains("needs --provider NAME or --model-url URL"),
            "{e}"
        );
        let e = resolve(&["--provider", "nope", "--model", "m"]).unwrap_err();
        assert!(e.contains("openrouter"), "the choices are listed: {e}");
        let e = resolve(&[
            "--provider",
            "mistral",
            "--model",
            "m",
            "--model-key-env",
            "ZOT_TEST_NO_SUCH_VAR",
        ])
        .unwrap_err();
        assert!(e.contains("$ZOT_TEST_NO_SUCH_VAR, which is unset"), "{e}");
        let e = resolve(&["--model-url", "ftp://x", "--model", "m"]).unwrap_err();
        assert!(
            e.starts_with("--model-url ftp://x: expected an http://"),
            "{e}"
        );
        let e = resolve(&[
            "--model-url",
            "http://x/v1",
            "--model",
            "m",
            "--model-idle-timeout",
            "0",
        ])
        .unwrap_err();
        assert!(e.contains("positive number of seconds"), "{e}");
    }
}
