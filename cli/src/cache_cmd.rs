//! `seedfall cache ls|verify|clear|path`: inspect and manage the compiled-code
//! cache. The directory is `--cache-dir`, else $SEEDFALL_CACHE_DIR, else the
//! user cache directory (where `exec` keeps its code). None of them creates
//! the directory or writes into one that is not a seedfall cache (issue 19:
//! they used to leave a CACHEDIR.TAG wherever they were pointed): such a
//! directory is an error (exit 2), a missing one is an empty cache.

use seedfall_cache::{Cache, Secret};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct CacheArgs {
    #[command(subcommand)]
    action: Action,
    /// The cache directory to manage.
    #[arg(long, value_name = "DIR", global = true)]
    cache_dir: Option<PathBuf>,
}

#[derive(clap::Subcommand)]
enum Action {
    /// List entries: key, size, and how recently a set used them (0 = latest).
    Ls,
    /// Check every entry's header, checksum and MAC; exit 1 if any is bad.
    Verify,
    /// Delete every entry.
    Clear,
    /// Print the cache directory.
    Path,
}

pub fn run(args: CacheArgs) -> ExitCode {
    let dir = args.cache_dir.unwrap_or_else(Cache::default_dir_for_exec);
    // `verify` checks each entry's MAC under the key a run would use; the
    // others need no key, and do not create this user's.
    let secret = match args.action {
        Action::Verify => Secret::from_env_or_user(),
        Action::Ls | Action::Clear | Action::Path => Err("no key needed".into()),
    };
    let cache = match Cache::open_existing(&dir, secret) {
        Ok(Some(cache)) => cache,
        Ok(None) => {
            match args.action {
                Action::Path => println!("{}", dir.display()),
                Action::Ls | Action::Verify => println!("no cache at {} yet", dir.display()),
                Action::Clear => println!("removed 0 entries from {} (no cache there)", dir.display()),
            }
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("seedfall cache: {e}");
            return ExitCode::from(2);
        }
    };
    match args.action {
        Action::Path => println!("{}", cache.dir().display()),
        Action::Ls => {
            for entry in cache.list() {
                let used = entry.last_used.map_or("-".to_string(), |n| n.to_string());
                println!("{}  {:>10} bytes  set {used}", entry.key.hex(), entry.size_bytes);
            }
        }
        Action::Verify => {
            let mut bad = 0;
            for (entry, result) in cache.verify() {
                match result {
                    Ok(()) => println!("ok   {}", entry.key.hex()),
                    Err(problem) => {
                        bad += 1;
                        println!("BAD  {}: {problem}", entry.key.hex());
                    }
                }
            }
            if bad > 0 {
                return ExitCode::from(1);
            }
        }
        Action::Clear => match cache.clear() {
            Ok(n) => println!("removed {n} entries from {}", cache.dir().display()),
            Err(e) => {
                eprintln!("seedfall cache clear: {e}");
                return ExitCode::from(2);
            }
        },
    }
    ExitCode::SUCCESS
}
