//! What to add to Go's own build errors when the cause is the target, not
//! the code: seedfall builds for GOOS=wasip1 GOARCH=wasm, so code that
//! builds for the user's own OS can miss `syscall.Statfs_t` or find every
//! file of a package excluded by build constraints. Go's lines are kept as
//! they are; the hint names the target, the missing symbols and
//! docs/wasip1.md. Not here: running `go` (cluster.rs, gotest/build.rs).

/// The target every Go package is built for.
pub const TARGET: &str = "GOOS=wasip1 GOARCH=wasm";

/// Go's `stderr` of a failed build, followed by a hint when its errors are
/// ones the wasip1 target causes.
pub fn explain(stderr: &str) -> String {
    match hint(stderr) {
        Some(hint) => format!("{stderr}\n{hint}"),
        None => stderr.to_string(),
    }
}

/// The hint for `stderr`, if a line of it is a symbol of another package
/// missing (`undefined: syscall.Statfs_t`) or a package with no file for
/// the target (`build constraints exclude all Go files in …`).
fn hint(stderr: &str) -> Option<String> {
    let mut symbols: Vec<&str> = Vec::new();
    let mut excluded = false;
    for line in stderr.lines() {
        if let Some(symbol) = line.split_once("undefined: ").map(|(_, rest)| rest.trim()).filter(|s| qualified(s))
            && !symbols.contains(&symbol)
        {
            symbols.push(symbol);
        }
        excluded |= line.contains("build constraints exclude all Go files");
    }
    let what = match (symbols.as_slice(), excluded) {
        ([], false) => return None,
        ([], true) => "a package it imports has no Go file for that target".to_string(),
        (found, _) => format!("{} {} not defined there", found.join(", "), if found.len() == 1 { "is" } else { "are" }),
    };
    Some(format!(
        "seedfall builds for {TARGET}, and {what} (code that builds for your own OS can lack them): \
         docs/wasip1.md lists what wasip1 lacks and what seedfall supplies (\"net_overlay\", \"compat_overlay\")"
    ))
}

/// `pkg.Name`: a name another package should have defined.
fn qualified(symbol: &str) -> bool {
    let Some((package, name)) = symbol.split_once('.') else { return false };
    let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    ident(package) && package.starts_with(|c: char| c.is_lowercase()) && ident(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_syscall_names_the_target_and_the_docs_page() {
        let go = "# example.com/disk\n./main.go:9:12: undefined: syscall.Statfs_t\n./main.go:10:7: undefined: syscall.Statfs";
        let text = explain(go);
        assert!(text.starts_with(go), "Go's own lines first: {text}");
        assert!(
            text.ends_with(
                "seedfall builds for GOOS=wasip1 GOARCH=wasm, and syscall.Statfs_t, syscall.Statfs are not defined \
                 there (code that builds for your own OS can lack them): docs/wasip1.md lists what wasip1 lacks and \
                 what seedfall supplies (\"net_overlay\", \"compat_overlay\")"
            ),
            "{text}"
        );
        let unix = explain("x.go:3:2: build constraints exclude all Go files in /m/golang.org/x/sys/unix");
        assert!(unix.contains("a package it imports has no Go file for that target"), "{unix}");
    }

    #[test]
    fn a_plain_mistake_gets_no_hint() {
        for go in ["./main.go:5:2: undefined: undefinedFunction", "./main.go:1:1: syntax error", "undefined: x.y.z"] {
            assert_eq!(explain(go), go);
        }
    }
}
