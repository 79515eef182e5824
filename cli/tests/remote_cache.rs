//! The remote compiled-code cache against a real HTTP server (nginx with
//! WebDAV PUT, Debian's nginx-core, which .ci/run installs): runner A (empty
//! local cache) compiles (lazily: what the run calls) and uploads that when
//! it exits; runner B (another empty local cache) hits remotely, compiles
//! nothing and runs the same; a read-only runner
//! uploads nothing; a tampered, unauthenticated or foreign-secret remote
//! entry is rejected and recompiled; a stopped, refusing or hanging server
//! costs one warning and the run goes on; without the secret the remote is
//! not used unless explicitly made insecure.

mod support;

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const SECRET: &str = "shared CI secret";

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("remote-cache-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The Go program every runner executes, built once.
fn program() -> &'static Path {
    static WASM: OnceLock<PathBuf> = OnceLock::new();
    WASM.get_or_init(|| support::build_wasip1("determinism", scratch("program").join("determinism.wasm")))
}

/// An nginx serving `root` with WebDAV PUT on a free local port.
struct Nginx {
    child: Child,
    root: PathBuf,
    port: u16,
    /// With TLS: the self-signed certificate clients must trust.
    cert: Option<PathBuf>,
}

impl Nginx {
    fn start(name: &str) -> Nginx {
        Nginx::start_with(name, false)
    }

    /// Over HTTPS, with a self-signed certificate for 127.0.0.1 made by openssl.
    fn start_tls(name: &str) -> Nginx {
        Nginx::start_with(name, true)
    }

    fn start_with(name: &str, tls: bool) -> Nginx {
        let dir = scratch(name);
        let root = dir.join("store");
        std::fs::create_dir_all(&root).unwrap();
        let port = free_port();
        let d = dir.display();
        let cert = tls.then(|| {
            let status = Command::new("openssl")
                .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1"])
                .args(["-addext", "subjectAltName=IP:127.0.0.1", "-addext", "basicConstraints=critical,CA:FALSE"])
                .arg("-keyout")
                .arg(dir.join("key.pem"))
                .arg("-out")
                .arg(dir.join("cert.pem"))
                .stderr(Stdio::null())
                .status()
                .expect("openssl is needed for the HTTPS test");
            assert!(status.success());
            dir.join("cert.pem")
        });
        let listen = match tls {
            true => {
                format!("listen 127.0.0.1:{port} ssl; ssl_certificate {d}/cert.pem; ssl_certificate_key {d}/key.pem;")
            }
            false => format!("listen 127.0.0.1:{port};"),
        };
        let conf = format!(
            "daemon off; master_process off; pid {d}/nginx.pid; error_log {d}/error.log;
             events {{}}
             http {{
               access_log {d}/access.log;
               client_body_temp_path {d}/body; proxy_temp_path {d}/proxy; fastcgi_temp_path {d}/fastcgi;
               uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;
               server {{
                 {listen}
                 client_max_body_size 0;
                 location / {{ root {root}; dav_methods PUT; create_full_put_path on; }}
               }}
             }}",
            root = root.display()
        );
        std::fs::write(dir.join("nginx.conf"), conf).unwrap();
        let child =
            Command::new("nginx").arg("-c").arg(dir.join("nginx.conf")).stderr(Stdio::null()).spawn().expect(
                "nginx is needed for the remote cache tests (Debian: apt-get install nginx-core; .ci/run does)",
            );
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(10), "nginx did not start: {}", d);
            std::thread::sleep(Duration::from_millis(20));
        }
        Nginx { child, root, port, cert }
    }

    fn url(&self) -> String {
        let scheme = if self.cert.is_some() { "https" } else { "http" };
        format!("{scheme}://127.0.0.1:{}/seedfall", self.port)
    }

    /// The entries the server holds.
    fn stored(&self) -> Vec<PathBuf> {
        let dir = self.root.join("seedfall/ac");
        let mut found: Vec<PathBuf> =
            std::fs::read_dir(dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
        found.sort();
        found
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

struct Ran {
    stdout: String,
    stderr: String,
    /// The `--timings` line: "Hit", "RemoteHit", "Miss" or "Recompiled …", then the breakdown.
    timings: String,
}

/// One `seedfall exec` of the program with local cache `cache` and `env`.
fn exec(cache: &Path, env: &[(&str, &str)]) -> Ran {
    let mut command = Command::new(env!("CARGO_BIN_EXE_seedfall"));
    command.args(["exec", "--timings", "--seed", "5"]).arg(program()).env("SEEDFALL_CACHE_DIR", cache);
    for var in [
        "SEEDFALL_REMOTE_CACHE",
        "SEEDFALL_CACHE_SECRET",
        "SEEDFALL_REMOTE_CACHE_READONLY",
        "SEEDFALL_REMOTE_CACHE_INSECURE",
    ] {
        command.env_remove(var);
    }
    command.envs(env.iter().copied());
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let timings = stderr.lines().find(|l| l.contains("key hash")).expect("--timings line").to_string();
    Ran { stdout: String::from_utf8_lossy(&out.stdout).into_owned(), stderr, timings }
}

/// How many functions the run compiled lazily (`exec --timings` says).
fn compiled_lazily(ran: &Ran) -> u32 {
    let line = ran.stderr.lines().find(|l| l.contains("functions compiled lazily")).expect("--timings says");
    line.trim_start_matches("seedfall: ").split(' ').next().and_then(|n| n.parse().ok()).expect("a count")
}

fn warnings(ran: &Ran) -> Vec<&str> {
    ran.stderr.lines().filter(|l| l.contains("warning:")).collect()
}

#[test]
fn runners_share_compiled_code_through_the_server_and_tampering_is_caught() {
    let server = Nginx::start("server-share");
    let url = server.url();
    let remote = [("SEEDFALL_REMOTE_CACHE", url.as_str()), ("SEEDFALL_CACHE_SECRET", SECRET)];

    let a = exec(&scratch("runner-a"), &remote);
    assert!(a.timings.contains("Miss") && compiled_lazily(&a) > 0, "{}", a.stderr);
    assert!(warnings(&a).is_empty(), "{}", a.stderr);
    let stored = server.stored();
    assert_eq!(stored.len(), 1, "A uploaded its entry before exiting");
    let good = std::fs::read(&stored[0]).unwrap();

    let b_cache = scratch("runner-b");
    let b = exec(&b_cache, &remote);
    assert!(b.timings.contains("RemoteHit") && compiled_lazily(&b) == 0, "no compile on B: {}", b.stderr);
    assert_eq!(b.stdout, a.stdout);
    assert!(warnings(&b).is_empty(), "{}", b.stderr);
    let again = exec(&b_cache, &remote);
    assert!(
        again.timings.contains("Hit") && !again.timings.contains("Remote"),
        "B keeps it locally: {}",
        again.timings
    );

    let mut tampered = good.clone();
    let last = tampered.len() - 1;
    tampered[last] ^= 0x55;
    std::fs::write(&stored[0], &tampered).unwrap();
    let c = exec(&scratch("runner-c"), &remote);
    assert!(c.timings.contains("Recompiled") && compiled_lazily(&c) > 0, "{}", c.stderr);
    assert!(c.stderr.contains("remote cache entry") && c.stderr.contains("checksum mismatch"), "{}", c.stderr);
    assert_eq!(c.stdout, a.stdout);
    assert_eq!(std::fs::read(&stored[0]).unwrap(), good, "C uploaded the good entry over the bad one");

    let mut unsigned = good.clone();
    unsigned[88..120].fill(0);
    std::fs::write(&stored[0], &unsigned).unwrap();
    let d = exec(&scratch("runner-d"), &remote);
    assert!(d.stderr.contains("not authenticated by SEEDFALL_CACHE_SECRET"), "{}", d.stderr);
    assert_eq!(d.stdout, a.stdout);

    let other = [("SEEDFALL_REMOTE_CACHE", url.as_str()), ("SEEDFALL_CACHE_SECRET", "another team")];
    let e = exec(&scratch("runner-e"), &other);
    assert!(e.stderr.contains("not authenticated"), "a foreign secret's entry is not run: {}", e.stderr);
}

#[test]
fn a_read_only_runner_downloads_but_never_uploads() {
    let server = Nginx::start("server-readonly");
    let url = server.url();
    let read_only = [
        ("SEEDFALL_REMOTE_CACHE", url.as_str()),
        ("SEEDFALL_CACHE_SECRET", SECRET),
        ("SEEDFALL_REMOTE_CACHE_READONLY", "1"),
    ];
    let pr = exec(&scratch("runner-pr"), &read_only);
    assert!(pr.timings.contains("Miss"), "{}", pr.timings);
    assert!(server.stored().is_empty(), "a read-only runner uploaded");
    exec(&scratch("runner-main"), &read_only[..2]);
    assert_eq!(server.stored().len(), 1);
    let pr = exec(&scratch("runner-pr-2"), &read_only);
    assert!(pr.timings.contains("RemoteHit"), "{}", pr.timings);
}

#[test]
fn an_absent_refusing_or_hanging_server_costs_one_warning() {
    let stopped = format!("http://127.0.0.1:{}/seedfall", free_port());
    let ran =
        exec(&scratch("runner-stopped"), &[("SEEDFALL_REMOTE_CACHE", &stopped), ("SEEDFALL_CACHE_SECRET", SECRET)]);
    assert!(ran.timings.contains("Miss"), "{}", ran.timings);
    let w = warnings(&ran);
    assert_eq!(w.len(), 1, "{}", ran.stderr);
    assert!(w[0].contains("remote cache http://127.0.0.1") && w[0].contains("using the local cache only"), "{}", w[0]);

    // Accepts connections, reads the request, never answers.
    let hanging = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/seedfall", hanging.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for mut stream in hanging.incoming().flatten() {
            let mut buf = [0u8; 1024];
            let _ = stream.read(&mut buf);
            held.push(stream);
        }
    });
    let started = Instant::now();
    let ran = exec(&scratch("runner-hanging"), &[("SEEDFALL_REMOTE_CACHE", &url), ("SEEDFALL_CACHE_SECRET", SECRET)]);
    assert!(started.elapsed() < Duration::from_secs(30), "a hanging server held the run {:?}", started.elapsed());
    assert_eq!(warnings(&ran).len(), 1, "{}", ran.stderr);
    assert!(ran.stdout.contains("math/rand:"), "the run went on: {}", ran.stdout);
}

#[test]
fn without_the_secret_the_remote_is_not_trusted() {
    let server = Nginx::start("server-nosecret");
    let url = server.url();
    let ran = exec(&scratch("runner-nosecret"), &[("SEEDFALL_REMOTE_CACHE", &url)]);
    assert!(ran.stderr.contains("SEEDFALL_CACHE_SECRET is not: the remote cache is not used"), "{}", ran.stderr);
    assert!(server.stored().is_empty());
    let insecure = [("SEEDFALL_REMOTE_CACHE", url.as_str()), ("SEEDFALL_REMOTE_CACHE_INSECURE", "1")];
    let ran = exec(&scratch("runner-insecure"), &insecure);
    assert!(ran.stderr.contains("whoever can write to it can run code on this machine"), "{}", ran.stderr);
    assert_eq!(server.stored().len(), 1, "insecure mode uploads");
    let ran = exec(&scratch("runner-insecure-2"), &insecure);
    assert!(ran.timings.contains("RemoteHit"), "{}", ran.timings);
    assert!(ran.stderr.contains("whoever can write to it"), "warned on every run: {}", ran.stderr);
}

#[test]
fn https_with_a_private_ca_works_and_an_untrusted_certificate_is_one_warning() {
    let server = Nginx::start_tls("server-https");
    let url = server.url();
    let ca = server.cert.as_ref().unwrap().display().to_string();
    let trusted =
        [("SEEDFALL_REMOTE_CACHE", url.as_str()), ("SEEDFALL_CACHE_SECRET", SECRET), ("SEEDFALL_REMOTE_CACHE_CA", &ca)];
    let a = exec(&scratch("runner-https-a"), &trusted);
    assert!(warnings(&a).is_empty(), "{}", a.stderr);
    assert_eq!(server.stored().len(), 1, "uploaded over HTTPS");
    let b = exec(&scratch("runner-https-b"), &trusted);
    assert!(b.timings.contains("RemoteHit"), "{}", b.timings);
    // Without the CA the certificate is not trusted: one warning, a local compile.
    let untrusted = exec(&scratch("runner-https-c"), &trusted[..2]);
    assert!(untrusted.timings.contains("Miss"), "{}", untrusted.timings);
    assert_eq!(warnings(&untrusted).len(), 1, "{}", untrusted.stderr);
}
