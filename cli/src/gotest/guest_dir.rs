//! Where a Go package's directory appears inside the guest: at
//! `/go/src/<import path>`, as if GOPATH were `/go`, never at its host path.
//! The guest sees that path (its PWD, `os.Getwd`, the strings the test
//! builds from them), and a path of another length moves every later
//! preemption point; so a seed's run must not depend on where the checkout
//! lives. `seedfall test` knows the import path from `go list`; `exec` (the
//! `go test -exec` program) finds it from the enclosing `go.mod`. It does not
//! mount anything.

use std::path::Path;

/// The guest directory of the package `import_path`.
pub fn of_import_path(import_path: &str) -> String {
    format!("/go/src/{}", import_path.trim_matches('/'))
}

/// Where `exec` mounts a directory outside any module.
pub const OUTSIDE_MODULE: &str = "/work";

/// The guest directory of host directory `dir`: its import path under the
/// nearest `go.mod` above it (itself included), else `OUTSIDE_MODULE`.
pub fn of_dir(dir: &Path) -> String {
    for root in dir.ancestors() {
        let Ok(text) = std::fs::read_to_string(root.join("go.mod")) else { continue };
        let Some(module) = module_path(&text) else { break };
        let rel = dir.strip_prefix(root).unwrap_or(Path::new(""));
        let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        let import_path = std::iter::once(module).chain(parts).collect::<Vec<_>>().join("/");
        return of_import_path(&import_path);
    }
    OUTSIDE_MODULE.to_string()
}

/// The path of a `go.mod`'s `module` directive (quoted or not, a comment after it allowed).
fn module_path(go_mod: &str) -> Option<String> {
    go_mod.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("module")?;
        if !rest.starts_with([' ', '\t', '"']) {
            return None;
        }
        let rest = rest.split("//").next().unwrap_or("").trim();
        let path = rest.trim_matches('"').trim_matches('`').trim();
        (!path.is_empty()).then(|| path.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_modules_directive_is_read_in_its_spellings() {
        assert_eq!(module_path("// x\nmodule example.com/m\n\ngo 1.22\n").as_deref(), Some("example.com/m"));
        assert_eq!(module_path("module \"example.com/q\" // quoted\n").as_deref(), Some("example.com/q"));
        assert_eq!(module_path("modules example.com/no\n"), None);
        assert_eq!(module_path("go 1.22\n"), None);
    }

    #[test]
    fn a_directory_is_placed_by_its_import_path_whatever_its_host_path() {
        let base = std::env::temp_dir().join(format!("seedfall-guest-dir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        for checkout in ["a", "a-much-longer-checkout-path"] {
            let module = base.join(checkout);
            std::fs::create_dir_all(module.join("bank/testdata")).unwrap();
            std::fs::write(module.join("go.mod"), "module example.com/m\n").unwrap();
            assert_eq!(of_dir(&module), "/go/src/example.com/m");
            assert_eq!(of_dir(&module.join("bank")), "/go/src/example.com/m/bank");
            assert_eq!(of_dir(&module.join("bank/testdata")), "/go/src/example.com/m/bank/testdata");
        }
        assert_eq!(of_import_path("example.com/m/bank"), "/go/src/example.com/m/bank");
        std::fs::remove_dir_all(&base).unwrap();
    }
}
