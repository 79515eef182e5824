//! The second level behind the local cache: a plain HTTP(S) GET/PUT store,
//! the protocol of Bazel's and ccache's HTTP caches, so bazel-remote, nginx
//! with WebDAV, or object storage behind a proxy serve it. An entry lives at
//! `<prefix>/ac/<key hex>` and is the local entry's bytes.
//!
//! Configured from the environment (docs/remote-cache.md): the URL in
//! `SEEDFALL_REMOTE_CACHE` (user and password in it are sent as basic
//! auth), `SEEDFALL_REMOTE_CACHE_TOKEN` (a bearer token),
//! `SEEDFALL_REMOTE_CACHE_READONLY=1` (never upload: pull-request jobs),
//! `SEEDFALL_REMOTE_CACHE_CA` (a PEM file of extra roots for HTTPS).
//! The remote is only used with `SEEDFALL_CACHE_SECRET` (entries are code
//! this machine runs) unless `SEEDFALL_REMOTE_CACHE_INSECURE=1`, which warns
//! on every run.
//!
//! It never fails a run: the first error (refused, timed out, a 5xx) is one
//! warning and the rest of the process uses the local cache only. Uploads
//! run on background threads; `finish` waits a bounded time for them. What
//! it does not do: verify entries (the cache does, over the downloaded
//! bytes), retry, or evict anything on the server.

use crate::Key;
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// rustls (with ring's C and assembly) on Linux; elsewhere the system's own
/// TLS (Security.framework, SChannel), which needs no C compiler for the
/// target and follows the system's certificate settings (docs/platforms.md).
#[cfg(target_os = "linux")]
const TLS_PROVIDER: ureq::tls::TlsProvider = ureq::tls::TlsProvider::Rustls;
#[cfg(not(target_os = "linux"))]
const TLS_PROVIDER: ureq::tls::TlsProvider = ureq::tls::TlsProvider::NativeTls;

pub const URL_ENV: &str = "SEEDFALL_REMOTE_CACHE";
pub const TOKEN_ENV: &str = "SEEDFALL_REMOTE_CACHE_TOKEN";
pub const READONLY_ENV: &str = "SEEDFALL_REMOTE_CACHE_READONLY";
pub const INSECURE_ENV: &str = "SEEDFALL_REMOTE_CACHE_INSECURE";
pub const CA_ENV: &str = "SEEDFALL_REMOTE_CACHE_CA";

/// The largest entry downloaded (the 21 MB net/http test binary's entry is 52 MB).
const MAX_ENTRY_BYTES: u64 = 4 << 30;

pub struct Remote {
    /// `scheme://host:port/prefix`, without credentials or a trailing slash.
    base: String,
    authorization: Option<String>,
    read_only: bool,
    agent: ureq::Agent,
    /// Why the remote is not used any more (the first error), once it failed.
    down: Mutex<Option<String>>,
    uploads: Mutex<Vec<JoinHandle<Result<(), String>>>>,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_struct("Remote").field("base", &self.base).field("read_only", &self.read_only).finish()
    }
}

/// What the environment asks for: a remote (or none) and the warnings to print.
pub struct FromEnv {
    pub remote: Option<Remote>,
    pub warnings: Vec<String>,
}

fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| matches!(v.as_str(), "1" | "true" | "yes"))
}

impl Remote {
    /// The remote cache the environment configures (the environment only:
    /// a config or a checkout never picks a server); `authenticated`: the
    /// cache is sealed with the shared secret, so downloaded entries are
    /// checked by MAC. Without it (`SEEDFALL_REMOTE_CACHE_INSECURE`), they
    /// are checked by checksum and sealed with this user's key when stored.
    pub fn from_env(authenticated: bool) -> FromEnv {
        let mut warnings = Vec::new();
        let Some(url) = std::env::var(URL_ENV).ok().filter(|u| !u.is_empty()) else {
            return FromEnv { remote: None, warnings };
        };
        if !authenticated {
            if !env_flag(INSECURE_ENV) {
                warnings.push(format!(
                    "{URL_ENV} is set but {} is not: the remote cache is not used (its entries are code this \
                     machine would run; set the secret, or {INSECURE_ENV}=1 to trust whoever can write to the server)",
                    crate::auth::SECRET_ENV
                ));
                return FromEnv { remote: None, warnings };
            }
            warnings.push(format!(
                "remote cache {} used without {}: whoever can write to it can run code on this machine",
                redact(&url),
                crate::auth::SECRET_ENV
            ));
        }
        let token = std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty());
        let ca = std::env::var_os(CA_ENV).map(std::path::PathBuf::from);
        match Remote::new(&url, token.as_deref(), env_flag(READONLY_ENV), ca.as_deref()) {
            Ok(remote) => FromEnv { remote: Some(remote), warnings },
            Err(e) => {
                warnings.push(format!("{URL_ENV}: {e}; using the local cache only"));
                FromEnv { remote: None, warnings }
            }
        }
    }

    pub fn new(
        url: &str,
        token: Option<&str>,
        read_only: bool,
        ca: Option<&std::path::Path>,
    ) -> Result<Remote, String> {
        let (scheme, rest) = url.split_once("://").ok_or_else(|| format!("{:?} is not an http(s) URL", redact(url)))?;
        if scheme != "http" && scheme != "https" {
            return Err(format!("{:?}: only http and https are supported", redact(url)));
        }
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let (userinfo, host) = match authority.rsplit_once('@') {
            Some((userinfo, host)) => (Some(userinfo), host),
            None => (None, authority),
        };
        if host.is_empty() {
            return Err(format!("{:?} names no host", redact(url)));
        }
        let basic = userinfo.map(|u| format!("Basic {}", base64(u.as_bytes())));
        let authorization = token.map(|t| format!("Bearer {t}")).or(basic);
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(3)))
            .timeout_recv_response(Some(Duration::from_secs(10)))
            .timeout_global(Some(Duration::from_secs(120)));
        let mut tls = ureq::tls::TlsConfig::builder().provider(TLS_PROVIDER);
        if let Some(ca) = ca {
            let pem = std::fs::read(ca).map_err(|e| format!("{CA_ENV} {}: {e}", ca.display()))?;
            let certs: Vec<_> = ureq::tls::parse_pem(&pem)
                .filter_map(|item| match item {
                    Ok(ureq::tls::PemItem::Certificate(cert)) => Some(cert),
                    _ => None,
                })
                .collect();
            if certs.is_empty() {
                return Err(format!("{CA_ENV} {}: no PEM certificate in it", ca.display()));
            }
            tls = tls.root_certs(ureq::tls::RootCerts::new_with_certs(&certs));
        }
        let config = config.tls_config(tls.build());
        Ok(Remote {
            base: format!("{scheme}://{host}{}", path.trim_end_matches('/')),
            authorization,
            read_only,
            agent: config.build().new_agent(),
            down: Mutex::new(None),
            uploads: Mutex::new(Vec::new()),
        })
    }

    /// Where `key`'s entry lives (no credentials: safe to print).
    pub fn url(&self, key: &Key) -> String {
        format!("{}/ac/{}", self.base, key.hex())
    }

    fn is_down(&self) -> bool {
        self.down.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }

    /// Marks the remote down; returns the warning for the first failure only.
    fn fail(&self, reason: String) -> Option<String> {
        let mut down = self.down.lock().unwrap_or_else(|e| e.into_inner());
        if down.is_some() {
            return None;
        }
        *down = Some(reason.clone());
        Some(format!("remote cache {}: {reason}; using the local cache only", self.base))
    }

    /// The entry stored under `key`: `Ok(None)` when the server has none (or
    /// the remote is down); `Err(warning)` on the first failure.
    pub fn get(&self, key: &Key) -> Result<Option<Vec<u8>>, String> {
        if self.is_down() {
            return Ok(None);
        }
        let mut request = self.agent.get(&self.url(key));
        if let Some(auth) = &self.authorization {
            request = request.header("Authorization", auth);
        }
        let result = request.call().map_err(|e| e.to_string()).and_then(|mut response| {
            match response.status().as_u16() {
                200 => {}
                404 => return Ok(None),
                status => return Err(format!("GET answered HTTP {status}")),
            }
            let mut bytes = Vec::new();
            let body = response.body_mut().with_config().limit(MAX_ENTRY_BYTES).reader();
            body.take(MAX_ENTRY_BYTES).read_to_end(&mut bytes).map_err(|e| format!("reading the entry: {e}"))?;
            Ok(Some(bytes))
        });
        result.or_else(|reason| self.fail(reason).map_or(Ok(None), Err))
    }

    /// Uploads `entry` under `key` on a background thread (unless read-only or down).
    pub fn upload(self: &Arc<Self>, key: &Key, entry: Vec<u8>) {
        if self.read_only || self.is_down() {
            return;
        }
        let (remote, url) = (self.clone(), self.url(key));
        let handle = std::thread::spawn(move || {
            let mut request = remote.agent.put(&url).header("Content-Type", "application/octet-stream");
            if let Some(auth) = &remote.authorization {
                request = request.header("Authorization", auth);
            }
            match request.send(&entry[..]) {
                Ok(response) if response.status().is_success() => Ok(()),
                Ok(response) => Err(format!("PUT answered HTTP {}", response.status().as_u16())),
                Err(e) => Err(e.to_string()),
            }
        });
        self.uploads.lock().unwrap_or_else(|e| e.into_inner()).push(handle);
    }

    /// Waits at most `within` for the uploads started so far; returns the
    /// warnings (a failed upload, uploads still running when time is up).
    pub fn finish(&self, within: Duration) -> Vec<String> {
        let deadline = Instant::now() + within;
        let handles = std::mem::take(&mut *self.uploads.lock().unwrap_or_else(|e| e.into_inner()));
        let mut warnings = Vec::new();
        let mut pending = 0;
        for handle in handles {
            while !handle.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            if !handle.is_finished() {
                pending += 1;
                continue;
            }
            if let Ok(Err(reason)) = handle.join() {
                warnings.extend(self.fail(format!("upload failed: {reason}")));
            }
        }
        if pending > 0 {
            warnings.push(format!(
                "remote cache {}: {pending} upload(s) still running after {:.0?}; not waiting for them",
                self.base, within
            ));
        }
        warnings
    }
}

/// `url` with any password replaced, for messages.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => format!("{}***{}", &url[..scheme_end + 3], &url[at..]),
        _ => url.to_string(),
    }
}

/// Standard base64 with padding (RFC 4648), for basic auth.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (*b as u32) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        let cases =
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("foobar", "Zm9vYmFy")];
        for (plain, encoded) in cases {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }

    #[test]
    fn urls_parse_into_base_and_credentials_never_print() {
        let remote = Remote::new("http://ci:hunter2@cache.local:8080/seedfall/", None, false, None).unwrap();
        assert_eq!(remote.url(&Key([0xab; 32])), format!("http://cache.local:8080/seedfall/ac/{}", "ab".repeat(32)));
        assert_eq!(remote.authorization.as_deref(), Some("Basic Y2k6aHVudGVyMg=="));
        assert!(!format!("{remote:?}").contains("hunter2"));
        let token = Remote::new("https://c.local", Some("t0k"), true, None).unwrap();
        assert_eq!(token.authorization.as_deref(), Some("Bearer t0k"));
        for bad in ["cache.local:8080", "ftp://c.local/x", "http:///x"] {
            assert!(Remote::new(bad, None, false, None).is_err(), "{bad}");
        }
        assert_eq!(redact("http://u:p@h/x"), "http://***@h/x");
    }
}
