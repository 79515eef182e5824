//! The Go build overlays. `net_overlay` (docs/net-overlay.md) routes
//! wasip1's `net` TCP and UDP sockets to the simulated network;
//! `compat_overlay` (docs/flock.md, docs/mmap.md) adds `syscall.Flock`, which
//! etcd's fileutil needs, and the mmap family, which bbolt needs (files for
//! modules in the module cache go through `compat_modules.rs` instead). Each release in `SUPPORTED` maps to an `Overlay`: our own
//! files for GOROOT's packages (`sdk/go/_overlay/<dir>/`, compiled into this
//! binary) and one-line hooks into the installed toolchain's `net` files,
//! written as patched copies under `.seedfall/build/overlay/<release>/`;
//! `go build -overlay=<json>` maps the GOROOT paths to them, so no runtime is
//! forked and Go's build cache and the compiled-code cache see every change.
//! A toolchain in the module cache is reached through a GOROOT link
//! (`go_command`). Any other release is a setup error naming the supported
//! ones rather than an obscure build error.

use crate::setup_error::SetupError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Go releases the overlays are written for (`go env GOVERSION` prefixes),
/// oldest first. 1.25, 1.26 and 1.27 share one overlay: the package
/// internals its files use (`newFD`, `newPollFD`, `setAddr`, `mapErr`,
/// `fakeNetFD`, `poll.FD`'s `RawRead`/`RawWrite`) and every hook's anchor
/// are the same in 1.25.12, 1.26.8 and 1.27.3.
pub const SUPPORTED: &[Release] = &[
    Release { name: "go1.25", overlay: &OVERLAY_GO1_26 },
    Release { name: "go1.26", overlay: &OVERLAY_GO1_26 },
    Release { name: "go1.27", overlay: &OVERLAY_GO1_26 },
];

/// A supported Go release and its overlay.
pub struct Release {
    pub name: &'static str,
    overlay: &'static Overlay,
}

/// What the overlays add to and change in a release's GOROOT/src: files of
/// their own (path, text) and hooks into its files. A release whose
/// internals differ gets its own directory under `sdk/go/_overlay/` and its
/// own `Overlay`.
struct Overlay {
    net: &'static [(&'static str, &'static str)],
    compat: &'static [(&'static str, &'static str)],
    hooks: &'static [Hook],
}

const OVERLAY_GO1_26: Overlay = Overlay {
    net: &[
        ("net/sock_seedfall_wasip1.go", include_str!("../../sdk/go/_overlay/go1.26/net/sock_seedfall_wasip1.go")),
        ("net/udp_seedfall_wasip1.go", include_str!("../../sdk/go/_overlay/go1.26/net/udp_seedfall_wasip1.go")),
    ],
    compat: &[
        ("syscall/flock_wasip1.go", include_str!("../../sdk/go/_overlay/go1.26/syscall/flock_wasip1.go")),
        ("syscall/mmap_wasip1.go", include_str!("../../sdk/go/_overlay/go1.26/syscall/mmap_wasip1.go")),
    ],
    hooks: HOOKS_GO1_26,
};

/// One line added to a GOROOT file: after the first line starting with
/// `anchor`.
struct Hook {
    file: &'static str,
    anchor: &'static str,
    line: &'static str,
}

const HOOKS_GO1_26: &[Hook] = &[
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

/// A written overlay: its JSON and, for a toolchain that lives in the module
/// cache, the link through which `go build` must see that GOROOT.
#[derive(Debug)]
pub struct Prepared {
    json: PathBuf,
    goroot_link: Option<PathBuf>,
    /// compat_overlay: modules get their files too (compat_modules.rs).
    pub compat: bool,
}

/// `go <verb...> -trimpath` (`build`, or `test -c` for `seedfall test`), with
/// `-overlay=<json>` when there is an overlay. `-trimpath` keeps the paths of
/// this machine (the checkout, GOROOT, the module cache) out of the module,
/// so the same source gives the same wasm, and so the same traces and cache
/// keys, wherever it is checked out (docs/platforms.md). `go build` refuses to replace files beneath GOMODCACHE, where a toolchain fetched
/// through GOTOOLCHAIN lives; such a toolchain's own `go` then builds with
/// GOROOT at the link (and GOTOOLCHAIN=local, so it switches to no other).
pub fn go_command(overlay: Option<&Prepared>, verb: &[&str]) -> Command {
    let mut go = match overlay.and_then(|o| o.goroot_link.as_deref()) {
        Some(link) => {
            let mut go = Command::new(link.join("bin").join("go"));
            go.env("GOROOT", link).env("GOTOOLCHAIN", "local");
            go
        }
        None => Command::new("go"),
    };
    go.args(verb).arg("-trimpath");
    if let Some(o) = overlay {
        go.arg(format!("-overlay={}", o.json.display()));
    }
    go
}

/// Writes the overlay for the installed Go under
/// `build_dir/overlay/<release>`, for `go_command`; None when the config asks
/// for none.
pub fn prepare(build_dir: &Path, parts: Parts) -> Result<Option<Prepared>, SetupError> {
    if !parts.net && !parts.compat {
        return Ok(None);
    }
    let (version, goroot, modcache) = go_env()?;
    let release = release_of(&version)?;
    let dir = build_dir.join("overlay").join(release.name);
    let overlay = release.overlay;
    let goroot_link = goroot.starts_with(&modcache).then(|| link(&dir.join("goroot"), &goroot)).transpose()?;
    // GOROOT as `go build` will see it, which the overlay's keys must name.
    let seen = goroot_link.as_deref().unwrap_or(&goroot).join("src");
    let mut replace = Vec::new();
    let added = overlay.net.iter().filter(|_| parts.net).chain(overlay.compat.iter().filter(|_| parts.compat));
    for (name, text) in added {
        replace.push((seen.join(name), write(&dir, name, text)?));
    }
    let mut files: Vec<&str> = overlay.hooks.iter().filter(|_| parts.net).map(|h| h.file).collect();
    files.dedup();
    for file in files {
        let original = goroot.join("src").join(file);
        let mut text = std::fs::read_to_string(&original)
            .map_err(|e| SetupError::Overlay(format!("cannot read {}: {e}", original.display())))?;
        for hook in overlay.hooks.iter().filter(|h| h.file == file) {
            text = patch(&text, hook).ok_or_else(|| {
                SetupError::Overlay(format!(
                    "{} of {version} does not have the line net_overlay hooks into ({})",
                    original.display(),
                    hook.anchor
                ))
            })?;
        }
        replace.push((seen.join(file), write(&dir, file, &text)?));
    }
    let map: serde_json::Map<String, serde_json::Value> =
        replace.into_iter().map(|(from, to)| (from.display().to_string(), to.display().to_string().into())).collect();
    let json = serde_json::json!({ "Replace": map }).to_string();
    let name =
        format!("overlay{}{}.json", if parts.net { "-net" } else { "" }, if parts.compat { "-compat" } else { "" });
    Ok(Some(Prepared { json: write(&dir, &name, &json)?, goroot_link, compat: parts.compat }))
}

/// `path` as a symbolic link to `target`, replaced atomically when it points
/// elsewhere (another patch release of the same Go).
fn link(path: &Path, target: &Path) -> Result<PathBuf, SetupError> {
    if std::fs::read_link(path).ok().as_deref() != Some(target) {
        let parent = path.parent().expect("a joined path has a parent");
        crate::safe_write::create_dirs(parent)
            .map_err(|error| SetupError::CreateDir { dir: parent.to_path_buf(), error })?;
        let partial = crate::safe_write::partial_path(path);
        symlink_dir(target, &partial)
            .and_then(|()| std::fs::rename(&partial, path))
            .map_err(|error| SetupError::Write { file: path.to_path_buf(), error })?;
    }
    Ok(path.to_path_buf())
}

/// A symbolic link at `link` to the directory `target`. Windows tells
/// directory links from file links, and creating one needs Developer Mode or
/// the privilege (else the setup error says the OS refused).
fn symlink_dir(target: &Path, link: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    return std::os::unix::fs::symlink(target, link);
    #[cfg(windows)]
    return std::os::windows::fs::symlink_dir(target, link);
}

/// The supported release `version` ("go1.26.8", or a bare "go1.26") belongs
/// to, or the setup error naming every supported one.
fn release_of(version: &str) -> Result<&'static Release, SetupError> {
    SUPPORTED.iter().find(|r| version == r.name || version.starts_with(&format!("{}.", r.name))).ok_or_else(|| {
        SetupError::Overlay(format!(
            "net_overlay and compat_overlay support Go {} (the installed go is {version})",
            SUPPORTED.iter().map(|r| format!("{}.x", &r.name[2..])).collect::<Vec<_>>().join(", ")
        ))
    })
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
    // Unchanged files keep their mtime, so repeated runs rebuild nothing (a
    // link is never unchanged: `replace` refuses it).
    let unchanged = crate::safe_write::check_target(&path).is_ok()
        && crate::input::read_text(&path, crate::input::TEXT_MAX_BYTES).ok().as_deref() == Some(contents);
    if !unchanged {
        crate::safe_write::replace(&path, contents.as_bytes())
            .map_err(|error| SetupError::Write { file: path.clone(), error })?;
    }
    Ok(path)
}

/// `go env GOVERSION GOROOT GOMODCACHE`.
fn go_env() -> Result<(String, PathBuf, PathBuf), SetupError> {
    let output =
        Command::new("go").args(["env", "GOVERSION", "GOROOT", "GOMODCACHE"]).output().map_err(SetupError::NoGo)?;
    let text = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    match (output.status.success(), &lines[..]) {
        (true, [version, root, modcache]) => Ok((version.to_string(), root.into(), modcache.into())),
        _ => Err(SetupError::Overlay(format!(
            "`go env GOVERSION GOROOT GOMODCACHE` failed: {}",
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
    fn a_version_maps_to_its_release_and_others_are_named() {
        assert_eq!(release_of("go1.25.12").unwrap().name, "go1.25");
        assert_eq!(release_of("go1.26").unwrap().name, "go1.26");
        assert_eq!(release_of("go1.27.3").unwrap().name, "go1.27");
        for other in ["go1.24.2", "go1.28rc1", "go1.250"] {
            let error = release_of(other).err().expect(other).to_string();
            assert_eq!(
                error,
                format!(
                    "net_overlay and compat_overlay support Go 1.25.x, 1.26.x, 1.27.x (the installed go is {other})"
                )
            );
        }
    }

    #[test]
    fn every_release_adds_its_files_once() {
        for r in SUPPORTED {
            let names: Vec<&str> = r.overlay.net.iter().chain(r.overlay.compat).map(|(name, _)| *name).collect();
            assert!(names.iter().all(|n| n.ends_with("_wasip1.go")), "{}: {names:?}", r.name);
            assert!(names.iter().enumerate().all(|(i, n)| !names[..i].contains(n)), "{}: {names:?}", r.name);
        }
    }

    #[test]
    fn a_toolchain_in_the_module_cache_builds_through_its_link() {
        let dir = std::env::temp_dir().join(format!("seedfall-overlay-link-{}", std::process::id()));
        let link_path = dir.join("overlay/go1.27/goroot");
        for target in ["/m/golang.org/toolchain@v0.0.1-go1.27.2", "/m/golang.org/toolchain@v0.0.1-go1.27.3"] {
            assert_eq!(link(&link_path, Path::new(target)).unwrap(), link_path);
            assert_eq!(std::fs::read_link(&link_path).unwrap(), Path::new(target));
        }
        let prepared = Prepared { json: dir.join("o.json"), goroot_link: Some(link_path.clone()), compat: false };
        let go = go_command(Some(&prepared), &["build"]);
        assert_eq!(go.get_program(), link_path.join("bin/go"));
        let envs: Vec<_> = go.get_envs().map(|(k, v)| (k.to_owned(), v.map(|v| v.to_owned()))).collect();
        assert!(envs.contains(&("GOROOT".into(), Some(link_path.clone().into()))), "{envs:?}");
        assert!(envs.contains(&("GOTOOLCHAIN".into(), Some("local".into()))), "{envs:?}");
        let args: Vec<_> = go.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(
            args,
            ["build".to_string(), "-trimpath".to_string(), format!("-overlay={}", dir.join("o.json").display())]
        );
        assert_eq!(go_command(None, &["build"]).get_program(), "go");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Only the installed release's GOROOT is on this machine; ci/go-releases.sh
    /// builds and runs the overlays under every supported one.
    #[test]
    fn the_installed_go_takes_every_hook() {
        let (version, goroot, _) = go_env().expect("go is installed");
        let release = release_of(&version).expect("the installed go is a supported release");
        for hook in release.overlay.hooks {
            let text = std::fs::read_to_string(goroot.join("src").join(hook.file)).unwrap();
            assert!(patch(&text, hook).is_some(), "{} of {version}: {}", hook.file, hook.anchor);
        }
    }
}
