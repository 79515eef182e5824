//! The README stays short with its links inside the repository, and
//! docs/getting-started.md stays true: its files (code blocks whose info
//! string names `file=PATH`) are written into an empty directory, and its
//! `console` blocks run there in order: each `$ seedfall …` line must exit
//! as its `# exits N` comment says (0 without one), and each output line the
//! page shows must appear in what the command printed (`…` stands for any
//! text; a line of only `…` for any lines).

use std::path::{Path, PathBuf};
use std::process::Command;

enum Block {
    File { path: String, text: String },
    Console(Vec<Step>),
}

struct Step {
    args: Vec<String>,
    exit: i32,
    expected: Vec<String>,
}

fn blocks(doc: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```").filter(|i| !i.is_empty()) else { continue };
        let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
        if let Some(path) = info.split_whitespace().find_map(|w| w.strip_prefix("file=")) {
            out.push(Block::File { path: path.to_string(), text: body.join("\n") + "\n" });
        } else if info == "console" {
            let mut steps: Vec<Step> = Vec::new();
            for l in body {
                if let Some(command) = l.strip_prefix("$ ") {
                    let (command, exit) = match command.split_once("# exits ") {
                        Some((c, n)) => (c, n.trim().parse().expect("an exit code")),
                        None => (command, 0),
                    };
                    let args = command.split_whitespace().map(str::to_string).collect();
                    steps.push(Step { args, exit, expected: vec![] });
                } else if l.trim() != "…" {
                    steps.last_mut().expect("output after a command").expected.push(l.to_string());
                }
            }
            out.push(Block::Console(steps));
        }
    }
    out
}

/// `expected`'s pieces between `…` appear in order in one line of `output`.
fn shows(output: &str, expected: &str) -> bool {
    output.lines().any(|line| {
        let mut rest = line;
        expected.split('…').filter(|p| !p.is_empty()).all(|piece| match rest.find(piece) {
            Some(at) => {
                rest = &rest[at + piece.len()..];
                true
            }
            None => false,
        })
    })
}

#[test]
fn the_getting_started_page_runs_as_written() {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/getting-started.md");
    let doc = std::fs::read_to_string(&page).unwrap();
    let dir: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR")).join("getting-started");
    let _ = std::fs::remove_dir_all(&dir);
    let (mut files, mut commands) = (0, 0);
    for block in blocks(&doc) {
        match block {
            Block::File { path, text } => {
                let file = dir.join(path);
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(file, text).unwrap();
                files += 1;
            }
            Block::Console(steps) => {
                for step in steps {
                    assert_eq!(step.args[0], "seedfall", "the page runs seedfall only: {:?}", step.args);
                    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
                        .args(&step.args[1..])
                        .current_dir(&dir)
                        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"))
                        .output()
                        .unwrap();
                    let stdout = String::from_utf8_lossy(&out.stdout);
                    let shown = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
                    assert_eq!(out.status.code(), Some(step.exit), "{:?}:\n{shown}", step.args);
                    for line in &step.expected {
                        assert!(shows(&stdout, line), "{:?} should print {line:?}; it printed:\n{shown}", step.args);
                    }
                    commands += 1;
                }
            }
        }
    }
    assert_eq!((files, commands), (5, 5), "the page's files and commands");
}

#[test]
fn an_ellipsis_stands_for_any_text() {
    assert!(shows("a\n100 seeds in 3.2s: 100 passed, 0 failed\n", "100 seeds … 100 passed, 0 failed"));
    assert!(!shows("100 seeds: 99 passed, 1 failed\n", "100 seeds … 100 passed"));
    assert!(!shows("passed 100 seeds\n", "100 seeds … passed"), "in order");
}

#[test]
fn the_readme_is_short_and_starts_with_the_two_commands() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 150, "README.md has {lines} lines: move detail to docs/");
    let commands: Vec<&str> = readme.lines().skip_while(|l| *l != "## Set up and run").take(10).collect();
    assert!(commands.iter().any(|l| l.starts_with("bash examples/demo.sh")), "{commands:?}");
    assert!(commands.iter().any(|l| l.starts_with("cargo test --workspace")), "{commands:?}");
    // Every relative link stays inside the repository.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (at, _) in readme.match_indices("](") {
        let rest = &readme[at + 2..];
        let target = &rest[..rest.find(')').unwrap()];
        if !target.starts_with("http") {
            assert!(root.join(target).exists(), "README links to {target}, which is not in the repository");
        }
    }
}
