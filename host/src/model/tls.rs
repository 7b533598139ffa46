//! TLS for `https://` model URLs: rustls with ring, the webpki roots
//! (Mozilla's list, built in) and the certificates of `--model-ca-file`.
//! Verification is always on: a private or self-signed server is trusted by
//! giving its CA, never by turning checks off.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::{CertificateError, ClientConfig, RootCertStore};

/// The client configuration: the built-in roots plus the certificates in
/// `ca_file` (PEM); the error names what is wrong with the file.
pub fn client_config(ca_file: Option<&Path>) -> Result<Arc<ClientConfig>, String> {
    let mut roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(path) = ca_file {
        for cert in read_pem(path)? {
            roots
                .add(cert)
                .map_err(|e| format!("a certificate in it is not usable as a CA: {e}"))?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS setup: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    // The client speaks HTTP/1.1 only.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

fn read_pem(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("not a PEM file: {e}"))?;
    if certs.is_empty() {
        return Err("no certificate in it (expected PEM: -----BEGIN CERTIFICATE-----)".into());
    }
    Ok(certs)
}

/// What a failed TLS handshake with `host` means, for the error line.
pub fn describe(e: &std::io::Error, host: &str) -> String {
    let Some(tls) = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
    else {
        return format!("TLS handshake with {host}: {e}");
    };
    const CA_HINT: &str =
        "if it is a private or self-signed certificate, pass its CA with --model-ca-file PEM";
    match tls {
        rustls::Error::InvalidCertificate(c) => match c {
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                format!("TLS: the server's certificate is not valid for {host} (refused)")
            }
            CertificateError::UnknownIssuer => format!(
                "TLS: the certificate of {host} is not signed by a trusted authority \
                 (refused; {CA_HINT})"
            ),
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                format!("TLS: the certificate of {host} has expired (refused)")
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                format!(
                    "TLS: the certificate of {host} is not valid yet (refused; check the clock)"
                )
            }
            other => format!("TLS: the certificate of {host} is refused: {other:?}"),
        },
        rustls::Error::InvalidMessage(_) => {
            format!("TLS: {host} does not answer in TLS (a plain http:// server?): {tls}")
        }
        other => format!("TLS handshake with {host}: {other}"),
    }
}
