//! compat_overlay's files for modules in Go's module cache (docs/mmap.md):
//! the wasip1 platform files that bbolt, golang.org/x/sys and goleveldb lack,
//! keyed by module and version. `go build -overlay` may not add files under
//! GOMODCACHE, so such a file goes into a copy of its module, built with a
//! `replace` (patches.rs makes the copy). A module gets its files only when
//! the package being built imports the package they belong to, so a config
//! that merely has the module in its graph builds the same wasm as before.
//! The libraries' own files are never changed.

use crate::setup_error::SetupError;
use std::path::Path;
use std::process::Command;

/// Files for one module: each goes into `package` (a directory of the module).
struct ModuleFiles {
    module: &'static str,
    /// The versions the files are written for: those starting with this.
    versions: &'static str,
    package: &'static str,
    files: &'static [(&'static str, &'static str)],
}

const MODULE_FILES: &[ModuleFiles] = &[
    ModuleFiles {
        module: "go.etcd.io/bbolt",
        versions: "v1.4.",
        package: "internal/common",
        files: &[("bolt_wasm.go", include_str!("../../sdk/go/_overlay/modules/bbolt/bolt_wasm.go"))],
    },
    // x/sys/unix has no wasip1 files of its own in any v0 release, so the
    // mmap family cannot clash with one.
    ModuleFiles {
        module: "golang.org/x/sys",
        versions: "v0.",
        package: "unix",
        files: &[(
            "mmap_seedfall_wasip1.go",
            include_str!("../../sdk/go/_overlay/modules/x-sys/mmap_seedfall_wasip1.go"),
        )],
    },
    ModuleFiles {
        module: "github.com/syndtr/goleveldb",
        versions: "v1.0.",
        package: "leveldb/storage",
        files: &[(
            "file_storage_wasip1.go",
            include_str!("../../sdk/go/_overlay/modules/goleveldb/file_storage_wasip1.go"),
        )],
    },
];

/// Files a module copy gets: (path in the module, text).
pub type Added = Vec<(String, &'static str)>;

/// The modules the package in `dir` (with its tests, for `go test -c`)
/// needs files added to, with the version its graph selects and the files,
/// in `MODULE_FILES` order.
pub fn needed(dir: &Path, tests: bool) -> Result<Vec<(String, String, Added)>, SetupError> {
    let output = Command::new("go")
        .args(["list", "-deps", "-e", "-f", "{{.ImportPath}} {{with .Module}}{{.Path}} {{.Version}}{{end}}"])
        .args(tests.then_some("-test"))
        .arg(".")
        .current_dir(dir)
        .env("GOOS", "wasip1")
        .env("GOARCH", "wasm")
        .output()
        .map_err(SetupError::NoGo)?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).trim_end().to_string();
        return Err(SetupError::Build { dir: dir.to_path_buf(), stderr: format!("go list -deps: {stderr}") });
    }
    let listed = String::from_utf8_lossy(&output.stdout);
    Ok(select(&listed))
}

/// `needed` on the lines of `go list -deps` ("package module version").
fn select(listed: &str) -> Vec<(String, String, Added)> {
    let imports: Vec<Vec<&str>> = listed.lines().map(|l| l.split_whitespace().collect()).collect();
    let mut needed = Vec::new();
    for entry in MODULE_FILES {
        let package = format!("{}/{}", entry.module, entry.package);
        let found = imports.iter().find(|fields| {
            matches!(fields[..], [p, m, v] if p == package && m == entry.module && v.starts_with(entry.versions))
        });
        if let Some(fields) = found {
            let files = entry.files.iter().map(|(name, text)| (format!("{}/{name}", entry.package), *text)).collect();
            needed.push((entry.module.to_string(), fields[2].to_string(), files));
        }
    }
    needed
}

#[cfg(test)]
mod tests {
    use super::select;

    #[test]
    fn files_go_to_imported_packages_of_known_versions_only() {
        let listed = "\
go.etcd.io/bbolt/internal/common go.etcd.io/bbolt v1.4.3
go.etcd.io/bbolt go.etcd.io/bbolt v1.4.3
golang.org/x/sys/cpu golang.org/x/sys v0.29.0
github.com/syndtr/goleveldb/leveldb/storage github.com/syndtr/goleveldb v2.0.0
fmt
";
        let needed = select(listed);
        let modules: Vec<_> = needed.iter().map(|(m, v, f)| (m.as_str(), v.as_str(), f[0].0.as_str())).collect();
        // x/sys is in the build but not its unix package; goleveldb v2 is
        // not a version the files are written for.
        assert_eq!(modules, [("go.etcd.io/bbolt", "v1.4.3", "internal/common/bolt_wasm.go")]);
    }
}
