//! The presets of `--provider`: where each common OpenAI-compatible API is
//! and which environment variable its key is usually kept in.

/// One provider preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Provider {
    /// The name given to `--provider`.
    pub name: &'static str,
    /// The API base URL (`{url}/chat/completions` is the endpoint).
    pub url: &'static str,
    /// The variable the key is read from; `None`: a local server that
    /// takes no key.
    pub key_env: Option<&'static str>,
}

const fn remote(name: &'static str, url: &'static str, key_env: &'static str) -> Provider {
    Provider {
        name,
        url,
        key_env: Some(key_env),
    }
}

const fn local(name: &'static str, url: &'static str) -> Provider {
    Provider {
        name,
        url,
        key_env: None,
    }
}

/// Every preset, in the order `--help` lists them.
pub const PROVIDERS: &[Provider] = &[
    remote("openai", "https://api.openai.com/v1", "OPENAI_API_KEY"),
    remote(
        "openrouter",
        "https://openrouter.ai/api/v1",
        "OPENROUTER_API_KEY",
    ),
    remote("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    remote(
        "together",
        "https://api.together.xyz/v1",
        "TOGETHER_API_KEY",
    ),
    remote(
        "deepseek",
        "https://api.deepseek.com/v1",
        "DEEPSEEK_API_KEY",
    ),
    remote("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
    remote(
        "fireworks",
        "https://api.fireworks.ai/inference/v1",
        "FIREWORKS_API_KEY",
    ),
    remote("xai", "https://api.x.ai/v1", "XAI_API_KEY"),
    remote("cerebras", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY"),
    // Their OpenAI-compatible endpoints (tools and streaming included).
    remote(
        "gemini",
        "https://generativelanguage.googleapis.com/v1beta/openai",
        "GEMINI_API_KEY",
    ),
    remote(
        "anthropic",
        "https://api.anthropic.com/v1",
        "ANTHROPIC_API_KEY",
    ),
    // Local servers at their default ports.
    local("ollama", "http://127.0.0.1:11434/v1"),
    local("lmstudio", "http://127.0.0.1:1234/v1"),
    local("llamacpp", "http://127.0.0.1:8080/v1"),
    local("vllm", "http://127.0.0.1:8000/v1"),
];

/// The preset named `name`.
pub fn find(name: &str) -> Option<&'static Provider> {
    PROVIDERS.iter().find(|p| p.name == name)
}

/// The preset names, for clap's possible values.
pub fn names() -> impl Iterator<Item = &'static str> {
    PROVIDERS.iter().map(|p| p.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_a_usable_endpoint_with_a_distinct_name() {
        let mut seen = std::collections::HashSet::new();
        for p in PROVIDERS {
            assert!(seen.insert(p.name), "{} twice", p.name);
            super::super::http::Endpoint::parse(p.url)
                .unwrap_or_else(|e| panic!("{}: {}: {e}", p.name, p.url));
            assert!(!p.url.ends_with('/'), "{}", p.name);
            // Remote APIs are reached over TLS and take a key; local
            // servers are on loopback and take none.
            if p.url.starts_with("https://") {
                let var = p.key_env.unwrap_or_else(|| panic!("{} has no key", p.name));
                assert!(var.ends_with("_API_KEY"), "{}: {var}", p.name);
            } else {
                assert!(p.url.starts_with("http://127.0.0.1:"), "{}", p.name);
                assert_eq!(p.key_env, None, "{}", p.name);
            }
            assert_eq!(find(p.name), Some(p));
        }
        assert_eq!(find("nope"), None);
        assert_eq!(names().count(), PROVIDERS.len());
    }
}
