//! TLS towards an `https://` upstream: rustls (the `ring` provider), trusting
//! the system's certificate authorities and any the user names
//! (`--upstream-ca`), as a client of a private deployment needs.

use rustls::{ClientConfig, RootCertStore};
use rustls_pki_types::{pem::PemObject, CertificateDer};
use std::io::{Error, ErrorKind};
use std::path::Path;
use std::sync::Arc;

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
