//! The Go build overlays. `net_overlay` (docs/net-overlay.md) routes
//! wasip1's `net` TCP and UDP sockets to the simulated network;
//! `compat_overlay` (docs/flock.md) adds `syscall.Flock` and its constants,
//! which etcd's fileutil needs on wasip1, as `syscall/flock_wasip1.go`. The
//! net overlay adds `sdk/go/_overlay/<go>/net/sock_seedfall_wasip1.go` and
//! `udp_seedfall_wasip1.go` (compiled into this binary) to GOROOT's `net`
//! package and hooks them in with one line in each of the installed
//! toolchain's own `net_fake.go` and `fd_fake.go` (and makes the socket
//! options of `tcpsockopt_stub.go` and `sockopt_fake.go` no-ops for
//! simulated sockets), written beside the build
//! as patched copies; `go build -overlay=<json>` maps the
//! GOROOT paths to them. Nothing on disk outside `.seedfall/build` changes
//! and no runtime is forked. The patched files are a function of the
//! installed Go, so Go's build cache and the compiled-code cache (keyed by
//! the wasm bytes) see every change. Only the Go versions in `SUPPORTED`
//! are accepted: an anchor that moves in another release would otherwise
//! fail as an obscure build error.

use crate::cluster::SetupError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Go releases the overlay is written for (`go env GOVERSION` prefixes).
pub const SUPPORTED: &[&str] = &["go1.26"];

/// The overlays' own files for Go 1.26 (GOROOT/src-relative path, text).
const SOCK_GO_1_26: (&str, &str) =
    ("net/sock_seedfall_wasip1.go", include_str!("../../sdk/go/_overlay/go1.26/net/sock_seedfall_wasip1.go"));
const UDP_GO_1_26: (&str, &str) =
    ("net/udp_seedfall_wasip1.go", include_str!("../../sdk/go/_overlay/go1.26/net/udp_seedfall_wasip1.go"));
const FLOCK_GO_1_26: (&str, &str) =
    ("syscall/flock_wasip1.go", include_str!("../../sdk/go/_overlay/go1.26/syscall/flock_wasip1.go"));

/// One line added to a GOROOT file: after the first line starting with
/// `anchor`.
struct Hook {
    file: &'static str,
    anchor: &'static str,
    line: &'static str,
}

const HOOKS: &[Hook] = &[
    Hook {
        file: "net/net_fake.go",
        anchor: "func socket(ctx context.Context,",
        line: "\tif fd, err, ok := seedfallSocket(ctx, net, family, sotype, laddr, raddr); ok {\n\t\treturn fd, err\n\t}",
    },
    Hook { file: "net/fd_fake.go", anchor: "\tnetfd = newFD(\"tcp\", d)", line: "\tseedfallAccepted(netfd)" },
    // A node name resolves with one host call; every other name (localhost,
    // a name in another case, an unknown one) goes on through Go's resolver.
    Hook {
        file: "net/lookup.go",
        anchor: "\ttrace, _ := ctx.Value(nettrace.TraceKey{}).(*nettrace.Trace)",
        line: "\tif addrs, ok := seedfallLookupIP(host); ok {\n\t\treturn addrs, nil\n\t}",
    },
    // Socket options of a simulated socket (fakeNetFD nil) succeed and do
    // nothing: Nagle, keep-alive probes and buffer sizes have no meaning on
    // the simulated network, and Go's wasip1 answer, ENOPROTOOPT, fails a
    // library that checks SetNoDelay's error.
    sockopt_no_op("net/tcpsockopt_stub.go", "func setNoDelay(fd *netFD, noDelay bool) error {"),
    sockopt_no_op("net/tcpsockopt_stub.go", "func setKeepAliveIdle(fd *netFD, d time.Duration) error {"),
    sockopt_no_op("net/tcpsockopt_stub.go", "func setKeepAliveInterval(fd *netFD, d time.Duration) error {"),
    sockopt_no_op("net/tcpsockopt_stub.go", "func setKeepAliveCount(fd *netFD, n int) error {"),
    sockopt_no_op("net/sockopt_fake.go", "func setReadBuffer(fd *netFD, bytes int) error {"),
    sockopt_no_op("net/sockopt_fake.go", "func setWriteBuffer(fd *netFD, bytes int) error {"),
    sockopt_no_op("net/sockopt_fake.go", "func setKeepAlive(fd *netFD, keepalive bool) error {"),
    sockopt_no_op("net/sockopt_fake.go", "func setLinger(fd *netFD, sec int) error {"),
];

const fn sockopt_no_op(file: &'static str, anchor: &'static str) -> Hook {
    Hook { file, anchor, line: "\tif fd.fakeNetFD == nil {\n\t\treturn nil\n\t}" }
}

/// Which overlays a config asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts {
    pub net: bool,
    pub compat: bool,
}

/// Writes the overlay for the installed Go under `build_dir/overlay` and
/// returns the path of its JSON, for `go build -overlay`; None when the
/// config asks for none.
pub fn prepare(build_dir: &Path, parts: Parts) -> Result<Option<PathBuf>, SetupError> {
    if !parts.net && !parts.compat {
        return Ok(None);
    }
    let (version, goroot) = go_env()?;
    let Some(release) = SUPPORTED.iter().find(|r| version == **r || version.starts_with(&format!("{r}."))) else {
        return Err(SetupError::Overlay(format!(
            "net_overlay and compat_overlay support Go {} (the installed go is {version})",
            SUPPORTED.iter().map(|r| format!("{}.x", &r[2..])).collect::<Vec<_>>().join(", ")
        )));
    };
    let dir = build_dir.join("overlay").join(release);
    let mut replace = Vec::new();
    let added = [(parts.net, SOCK_GO_1_26), (parts.net, UDP_GO_1_26), (parts.compat, FLOCK_GO_1_26)];
    for (name, text) in added.into_iter().filter_map(|(on, file)| on.then_some(file)) {
        replace.push((goroot.join("src").join(name), write(&dir, name, text)?));
    }
    let mut files: Vec<&str> = HOOKS.iter().filter(|_| parts.net).map(|h| h.file).collect();
    files.dedup();
    for file in files {
        let original = goroot.join("src").join(file);
        let mut text = std::fs::read_to_string(&original)
            .map_err(|e| SetupError::Overlay(format!("cannot read {}: {e}", original.display())))?;
        for hook in HOOKS.iter().filter(|h| h.file == file) {
            text = patch(&text, hook).ok_or_else(|| {
                SetupError::Overlay(format!(
                    "{} of {version} does not have the line net_overlay hooks into ({})",
                    original.display(),
                    hook.anchor
                ))
            })?;
        }
        replace.push((original, write(&dir, file, &text)?));
    }
    let map: serde_json::Map<String, serde_json::Value> =
        replace.into_iter().map(|(from, to)| (from.display().to_string(), to.display().to_string().into())).collect();
    let json = serde_json::json!({ "Replace": map }).to_string();
    let name =
        format!("overlay{}{}.json", if parts.net { "-net" } else { "" }, if parts.compat { "-compat" } else { "" });
    write(&dir, &name, &json).map(Some)
}

/// `text` with the hook's line after its anchor, or None without the anchor.
fn patch(text: &str, hook: &Hook) -> Option<String> {
    let at = text.lines().position(|l| l.starts_with(hook.anchor))?;
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(at + 1, hook.line);
    Some(lines.join("\n") + "\n")
}

fn write(dir: &Path, name: &str, contents: &str) -> Result<PathBuf, SetupError> {
    let path = dir.join(name);
    let parent = path.parent().expect("a joined path has a parent");
    std::fs::create_dir_all(parent).map_err(|error| SetupError::CreateDir { dir: parent.to_path_buf(), error })?;
    // Unchanged files keep their mtime, so repeated runs rebuild nothing.
    if std::fs::read_to_string(&path).ok().as_deref() != Some(contents) {
        std::fs::write(&path, contents).map_err(|error| SetupError::Write { file: path.clone(), error })?;
    }
    Ok(path)
}

/// `go env GOVERSION GOROOT`.
fn go_env() -> Result<(String, PathBuf), SetupError> {
    let output = Command::new("go").args(["env", "GOVERSION", "GOROOT"]).output().map_err(SetupError::NoGo)?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut lines = text.lines();
    match (output.status.success(), lines.next(), lines.next()) {
        (true, Some(version), Some(root)) => Ok((version.trim().to_string(), PathBuf::from(root.trim()))),
        _ => Err(SetupError::Overlay(format!(
            "`go env GOVERSION GOROOT` failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_goes_after_its_anchor_line() {
        let hook = Hook { file: "x.go", anchor: "func f(", line: "\thook()" };
        assert_eq!(
            patch("package x\nfunc f() {\n\tbody()\n}\n", &hook).unwrap(),
            "package x\nfunc f() {\n\thook()\n\tbody()\n}\n"
        );
        assert_eq!(patch("package x\n", &hook), None);
    }

    #[test]
    fn the_installed_go_takes_every_hook() {
        let (_, goroot) = go_env().expect("go is installed");
        for hook in HOOKS {
            let text = std::fs::read_to_string(goroot.join("src").join(hook.file)).unwrap();
            assert!(patch(&text, hook).is_some(), "{}", hook.file);
        }
    }
}
