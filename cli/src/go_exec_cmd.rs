//! `seedfall go-exec install DIR`: clap glue over `seedfall::go_exec`.

use seedfall::go_exec;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct GoExecArgs {
    #[command(subcommand)]
    command: GoExecCommand,
}

#[derive(clap::Subcommand)]
enum GoExecCommand {
    /// Write DIR/go_wasip1_wasm_exec: with DIR on PATH, `GOOS=wasip1 GOARCH=wasm go test` runs under seedfall.
    Install { dir: PathBuf },
}

pub fn run(args: GoExecArgs) -> ExitCode {
    let GoExecCommand::Install { dir } = args.command;
    let seedfall = match std::env::current_exe() {
        Ok(path) => path,
        Err(e) => {
            eprintln!("seedfall go-exec: cannot find the seedfall binary: {e}");
            return ExitCode::from(2);
        }
    };
    match go_exec::install(&dir, &seedfall) {
        Ok(file) => {
            println!("wrote {}", file.display());
            println!(
                "set: export GOFLAGS=-trimpath   (without it each test binary holds its checkout's path, and a \
                 seed's run changes with where the checkout lives)"
            );
            println!(
                "run: PATH={}:$PATH GOOS=wasip1 GOARCH=wasm go test ./...   (SEEDFALL_SEED=N picks the seed)",
                dir.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("seedfall go-exec: {e}");
            ExitCode::from(2)
        }
    }
}
