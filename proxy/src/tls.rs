//! TLS towards an `https://` upstream: rustls (the `ring` provider), trusting
//! the system's certificate authorities and any the user names
//! (`--upstream-ca`), as a client of a private deployment needs.

use bytes::Bytes;
use http_body_util::Full;
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use rustls::{ClientConfig, RootCertStore};
use rustls_pki_types::{pem::PemObject, CertificateDer};
use std::io::{Error, ErrorKind};
use std::path::Path;
use std::sync::Arc;

/// The read buffer of a connection to upstream.
const UPSTREAM_READ_BUF: usize = 4096;

/// An HTTP client for an upstream: plain `http://`, or TLS for `https://`
/// (the system's roots and `extra_ca`); every socket `TCP_NODELAY`.
pub type UpstreamClient = Client<HttpsConnector<HttpConnector>, Full<Bytes>>;

/// The client the proxy (and the bridge) reaches `upstream` with; fails for
/// a scheme other than `http` and `https`, or an unreadable `extra_ca`.
pub fn upstream_client(upstream: &http::Uri, extra_ca: Option<&Path>) -> std::io::Result<UpstreamClient> {
    let https = match upstream.scheme_str() {
        Some("https") => true,
        Some("http") => false,
        _ => return Err(Error::new(ErrorKind::InvalidInput, "the upstream URL is http:// or https://")),
    };
    let tls = client_config(https, extra_ca)?;
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    connector.enforce_http(false);
    let connector =
        HttpsConnectorBuilder::new().with_tls_config(tls).https_or_http().enable_http1().wrap_connector(connector);
    // Reads from upstream in 4 KiB (hyper's adaptive default starts at 8 KiB
    // and grows): an open SSE stream holds one such buffer all its life.
    Ok(Client::builder(TokioExecutor::new()).http1_read_buf_exact_size(UPSTREAM_READ_BUF).build(connector))
}

/// The client configuration: the system's roots when `https` (an `http://`
/// upstream never uses them, so they are not read), and each certificate of
/// the PEM file `extra_ca`.
pub(crate) fn client_config(https: bool, extra_ca: Option<&Path>) -> std::io::Result<ClientConfig> {
    let mut roots = RootCertStore::empty();
    if https {
        let native = rustls_native_certs::load_native_certs();
        for e in &native.errors {
            eprintln!("mrtr-proxy: the system's certificate authorities: {e}");
        }
        roots.add_parsable_certificates(native.certs);
    }
    if let Some(path) = extra_ca {
        let unreadable = |e| Error::new(ErrorKind::InvalidInput, format!("{}: {e}", path.display()));
        let mut added = 0;
        for cert in CertificateDer::pem_file_iter(path).map_err(unreadable)? {
            roots.add(cert.map_err(unreadable)?).map_err(|e| Error::new(ErrorKind::InvalidInput, e))?;
            added += 1;
        }
        if added == 0 {
            return Err(Error::new(ErrorKind::InvalidInput, format!("{}: no certificate in it", path.display())));
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::other(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(config)
}
