//! Argument normalisation before clap parses: the reference tool documents
//! single-dash long flags (`-seeds 1-500`, `-c file`), clap wants GNU style
//! (`--seeds`). Known single-dash spellings become double-dash. For `exec`,
//! nothing after the program file is touched: it belongs to the guest
//! (`-test.v` and friends); for any command, nothing after `--` is either.

/// Long flags documented with a single dash.
const SINGLE_DASH_LONG: &[&str] = &[
    "seeds",
    "seed",
    "check",
    "faults",
    "budget",
    "report",
    "json",
    "dir",
    "env",
    "preempt",
    "cache-dir",
    "shift",
    "remove",
    "node",
    "at",
    "max-states",
    "show-fails",
    "fail-on",
    "shrink-new",
    "futures",
    "moments",
    "run",
    "minimize",
    "novelty",
    "novelty-patience",
    "save-trace",
    "against",
    "from",
    "to",
    "context",
    "edges",
];

pub fn normalize(args: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut iter = args.into_iter();
    if let Some(program) = iter.next() {
        out.push(program);
    }
    let mut command: Option<String> = None;
    let mut expecting_value = false;
    let mut rest_is_guest = false;
    for arg in iter {
        if rest_is_guest {
            out.push(arg);
            continue;
        }
        if arg == "--" {
            // `test … -- TESTFLAGS`: what follows belongs to the test binary.
            rest_is_guest = true;
            out.push(arg);
            continue;
        }
        let is_flag = arg.starts_with('-') && arg.len() > 1;
        let normalized = match arg.strip_prefix('-') {
            Some(name)
                if !name.starts_with('-') && SINGLE_DASH_LONG.contains(&name.split('=').next().unwrap_or("")) =>
            {
                format!("-{arg}")
            }
            _ => arg.clone(),
        };
        if command.is_none() && !is_flag {
            command = Some(arg.clone());
        } else if command.as_deref() == Some("exec") && !is_flag && !expecting_value {
            // The program file: everything after it goes to the guest untouched.
            rest_is_guest = true;
        }
        expecting_value = is_flag && !normalized.contains('=') && takes_value(&normalized);
        out.push(normalized);
    }
    out
}

/// Flags of `exec` (and the global ones) that take a separate value.
fn takes_value(flag: &str) -> bool {
    matches!(
        flag,
        "--seed"
            | "--dir"
            | "--env"
            | "--preempt"
            | "--cache-dir"
            | "-c"
            | "--seeds"
            | "--faults"
            | "--budget"
            | "--json"
            | "--report"
            | "--show-fails"
            | "--fail-on"
            | "--run"
            | "--novelty-patience"
            | "--save-trace"
            | "-j"
    )
}

#[cfg(test)]
mod tests {
    use super::normalize;

    fn n(args: &[&str]) -> Vec<String> {
        normalize(args.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn single_dash_long_flags_become_double_dash() {
        assert_eq!(n(&["sf", "run", "-seeds", "1-5", "-check"]), ["sf", "run", "--seeds", "1-5", "--check"]);
        assert_eq!(n(&["sf", "run", "-c", "x.json"]), ["sf", "run", "-c", "x.json"]);
        assert_eq!(
            n(&["sf", "trace", "view", "t.log", "-node", "server", "-from", "3", "-to", "9"]),
            ["sf", "trace", "view", "t.log", "--node", "server", "--from", "3", "--to", "9"]
        );
    }

    #[test]
    fn exec_leaves_the_guest_arguments_alone() {
        assert_eq!(
            n(&["sf", "exec", "-seed", "3", "--dir", "/a", "prog.test", "-test.v", "-seed", "9"]),
            ["sf", "exec", "--seed", "3", "--dir", "/a", "prog.test", "-test.v", "-seed", "9"]
        );
    }
}
