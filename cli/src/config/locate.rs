//! Finding the config file a command was given: `-c FILE` (a directory
//! means its `seedfall.json`) or `./seedfall.json`, and what to say when it
//! is not there. A missing default names `-c`; a missing `-c FILE` says so,
//! offers the nearest `.json` name in its folder (`seedfal.json` →
//! `seedfall.json`) and never tells the user to do what they just did.
//! Also the config a saved schedule belongs to, and the config's real
//! folder, the one `git` should look at.
//! Not here: reading and checking the file (`load`).

use super::suggest::nearest;
use super::{Config, ConfigError, DEFAULT_FILE, ErrorKind, config_path, load};
use std::path::{Path, PathBuf};

/// The config `-c` names (`arg`), or the default one, loaded; with its path.
pub fn open(arg: Option<&Path>) -> Result<(PathBuf, Config), ConfigError> {
    let path = config_path(arg);
    match load(&path) {
        Ok(config) => Ok((path, config)),
        Err(e) if e.kind == ErrorKind::Read && !path.exists() => {
            Err(ConfigError { message: missing(&path, arg.is_some()), ..e })
        }
        Err(e) => Err(e),
    }
}

/// Why `path` cannot be read, which does not exist; `named` when `-c` gave it.
fn missing(path: &Path, named: bool) -> String {
    if !named {
        return "no such file (name the config with -c FILE)".into();
    }
    let folder = match path.parent() {
        Some(p) if p.as_os_str().is_empty() => Path::new("."),
        Some(p) => p,
        None => Path::new("."),
    };
    if !folder.is_dir() {
        return format!("no such file: the folder {} that -c names does not exist", folder.display());
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut candidates: Vec<String> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") && !n.ends_with(".faults.json"))
        .collect();
    // Sorted, so the same folder always suggests the same name.
    candidates.sort();
    match nearest(&name, candidates.iter().map(String::as_str)) {
        Some(near) => format!("no such file (the config -c names); did you mean {}?", folder.join(near).display()),
        None => "no such file (the config -c names)".into(),
    }
}

/// The config a schedule saved under a `.seedfall/` folder belongs to, by
/// the names `state_file` gives: `seed-N.faults.json`, `explore/…` and
/// `cause/…` are `seedfall.json`'s; `X.seed-N.faults.json`, `X.explore/…`
/// and `X.cause/…` are `X.json`'s. None when the file is elsewhere or that
/// config does not exist.
pub fn for_schedule(schedule: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(schedule).ok()?;
    let components: Vec<&std::ffi::OsStr> = absolute.iter().collect();
    let at = components.iter().rposition(|c| *c == ".seedfall")?;
    let first = components.get(at + 1)?.to_str()?;
    let variant = match first {
        "explore" | "cause" => None,
        name if name.starts_with("seed-") => None,
        name => Some(
            name.split_once(".seed-")
                .map(|(x, _)| x)
                .or_else(|| name.strip_suffix(".explore"))
                .or_else(|| name.strip_suffix(".cause"))?,
        ),
    };
    let folder: PathBuf = components[..at].iter().collect();
    let config = folder.join(variant.map_or(DEFAULT_FILE.to_string(), |x| format!("{x}.json")));
    config.is_file().then_some(config)
}

/// The folder the config really lives in (symlinks followed), where `git`
/// finds the checkout; the config's own folder, or `.`, if that fails.
pub fn real_dir(config_path: &Path) -> PathBuf {
    let lexical = match config_path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::canonicalize(config_path).ok().and_then(|p| p.parent().map(Path::to_path_buf)).unwrap_or(lexical)
}
