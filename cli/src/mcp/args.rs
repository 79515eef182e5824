//! A tool call's arguments: checked against the tool's list (names and
//! JSON types) with messages in plain English, and read within the
//! server's limits (docs/agents.md): paths confined to the allowed folders
//! (`paths`), `jobs` at most this machine's cores, at most `MAX_SEEDS`
//! seeds per call, pages of at most `MAX_LIMIT` seeds. A limit applied is
//! kept as a note for the result. It runs nothing.

use super::error::McpError;
use super::page::Page;
use super::paths::Paths;
use crate::schedule::Schedule;
use crate::{config, seeds};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::path::PathBuf;

/// The most seeds one call may sweep.
pub const MAX_SEEDS: u64 = 100_000;

/// The most seeds of per-seed detail one page carries.
pub const MAX_LIMIT: u64 = 100;

/// An argument: its name, JSON type (`integer`, `string`, `boolean`) and meaning.
pub type Spec = (&'static str, &'static str, &'static str);

/// A call's arguments, checked.
pub struct Args<'a> {
    map: &'a Map<String, Value>,
    paths: &'a Paths,
    notes: RefCell<Vec<String>>,
}

impl<'a> Args<'a> {
    /// `arguments` of a call to `tool`, which takes `specs` and needs `required`.
    pub fn check(
        tool: &str,
        specs: &[Spec],
        required: &[&str],
        arguments: &'a Value,
        paths: &'a Paths,
    ) -> Result<Args<'a>, McpError> {
        let Some(map) = arguments.as_object() else {
            return Err(McpError::Call(format!(
                "{tool}: the arguments must be a JSON object of named values, not {arguments}"
            )));
        };
        for (name, value) in map {
            let Some((_, kind, _)) = specs.iter().find(|(n, _, _)| n == name) else {
                let known: Vec<&str> = specs.iter().map(|(n, _, _)| *n).collect();
                return Err(McpError::Call(format!(
                    "{tool}: unknown argument {name:?} (it takes {})",
                    known.join(", ")
                )));
            };
            let (fits, wanted) = match *kind {
                "integer" => (value.as_u64().is_some(), "a whole number (0, 1, 2, …)"),
                "boolean" => (value.is_boolean(), "true or false"),
                // A budget is a count of runs (300) or a wall time ("10m").
                _ if *name == "budget" => (value.is_string() || value.as_u64().is_some(), "a number of runs or a time"),
                _ => (value.is_string(), "text (a JSON string)"),
            };
            if !fits && !value.is_null() {
                return Err(McpError::Call(format!("{tool}: {name:?} must be {wanted}, not {}", shown(value))));
            }
        }
        if let Some(missing) = required.iter().find(|r| map.get(**r).is_none_or(Value::is_null)) {
            return Err(McpError::Call(format!("{tool}: {missing:?} is required")));
        }
        Ok(Args { map, paths, notes: RefCell::new(Vec::new()) })
    }

    pub fn text(&self, name: &str) -> Option<String> {
        match self.map.get(name)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }

    pub fn number(&self, name: &str) -> Option<u64> {
        self.map.get(name).and_then(Value::as_u64)
    }

    pub fn flag(&self, name: &str) -> bool {
        self.map.get(name).and_then(Value::as_bool).unwrap_or(false)
    }

    /// The config's path (`config`, else ./seedfall.json): an existing file
    /// inside the allowed folders.
    pub fn config(&self) -> Result<PathBuf, McpError> {
        let path = config::config_path(self.text("config").map(PathBuf::from).as_deref());
        self.paths.file(&path, "config file")
    }

    pub fn seed(&self) -> u64 {
        self.number("seed").expect("checked as required")
    }

    /// The schedule named by `faults`, if any, read from an allowed folder.
    pub fn schedule(&self) -> Result<Option<(PathBuf, Schedule)>, McpError> {
        let Some(path) = self.text("faults").map(PathBuf::from) else { return Ok(None) };
        let path = self.paths.file(&path, "schedule")?;
        let schedule = Schedule::load(&path).map_err(|e| McpError::File(without_contents(&e.to_string())))?;
        Ok(Some((path.clone(), schedule)))
    }

    /// Worker threads: `jobs` (default all cores), at most the cores.
    pub fn jobs(&self) -> usize {
        let cores = crate::sweep::workers(None);
        match self.number("jobs") {
            Some(asked) if asked > cores as u64 => {
                self.note(format!("jobs {asked} is more than this machine's {cores} cores: {cores} used"));
                cores
            }
            asked => asked.map_or(cores, |a| a.max(1) as usize),
        }
    }

    /// `seeds` as given (default `1-100`) and the seeds it lists, at most `MAX_SEEDS`.
    pub fn seeds(&self) -> Result<(String, Vec<u64>), McpError> {
        let list = self.text("seeds").unwrap_or_else(|| "1-100".to_string());
        // Counted before the list is made, so a huge list is never held.
        if upper_count(&list) > MAX_SEEDS {
            return Err(McpError::Call(format!(
                "seeds {list:?}: more than {MAX_SEEDS} seeds in one call; sweep them in several calls"
            )));
        }
        let seeds = seeds::parse_seeds(&list).map_err(|e| McpError::Call(format!("seeds: {e}")))?;
        Ok((list, seeds))
    }

    /// Which per-seed detail to return: `offset`, `limit` (0: the summary only).
    pub fn page(&self) -> Page {
        let limit = self.number("limit").unwrap_or(0);
        if limit > MAX_LIMIT {
            self.note(format!("limit {limit} is more than {MAX_LIMIT} per page: {MAX_LIMIT} returned"));
        }
        Page { offset: self.number("offset").unwrap_or(0) as usize, limit: limit.min(MAX_LIMIT) as usize }
    }

    fn note(&self, note: String) {
        self.notes.borrow_mut().push(note);
    }

    /// The limits applied, for the result.
    pub fn notes(&self) -> Vec<String> {
        self.notes.borrow().clone()
    }
}

/// A wrong value as the message shows it: whole when short.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// How many seeds `list` names at most (a part that is not a number or a
/// range counts none: parsing says what is wrong with it).
fn upper_count(list: &str) -> u64 {
    let number = |s: &str| s.trim().parse::<u64>().ok();
    list.split(',')
        .map(|part| match part.split_once('-') {
            Some((a, b)) => match (number(a), number(b)) {
                (Some(a), Some(b)) if b >= a => (b - a).saturating_add(1),
                _ => 0,
            },
            None => u64::from(number(part).is_some()),
        })
        .fold(0u64, u64::saturating_add)
}

/// A message about a file the client named, without what the file holds:
/// the values JSON errors quote (`invalid type: string "…"`) are left out.
pub fn without_contents(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = ["string \"", "value \"", "variant `", "field `"]
        .iter()
        .filter_map(|m| rest.find(m).map(|i| (i + m.len(), m.as_bytes()[m.len() - 1] as char)))
        .min()
    {
        let (at, quote) = at;
        out.push_str(&rest[..at]);
        out.push('…');
        rest = &rest[at..];
        match rest.find(quote) {
            Some(end) => rest = &rest[end..],
            None => rest = "",
        }
    }
    out + rest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_counts_are_bounded_before_the_list_is_made() {
        assert_eq!(upper_count("1-500"), 500);
        assert_eq!(upper_count("1,5,9-12"), 6);
        assert_eq!(upper_count("1-18446744073709551615,0-18446744073709551615"), u64::MAX);
        assert_eq!(upper_count("x,5-1"), 0);
    }

    #[test]
    fn quoted_file_values_are_left_out_of_messages() {
        assert_eq!(
            without_contents("a.json: invalid type: string \"root:x:0:0\", expected a sequence at line 1"),
            "a.json: invalid type: string \"…\", expected a sequence at line 1"
        );
        assert_eq!(
            without_contents("unknown field `secret`, expected `faults`"),
            "unknown field `…`, expected `faults`"
        );
        assert_eq!(
            without_contents("not JSON: expected value at line 1 column 1"),
            "not JSON: expected value at line 1 column 1"
        );
    }

    #[test]
    fn wrong_types_are_named_in_plain_words() {
        let paths = Paths::new(&[]).unwrap();
        let specs: &[Spec] = &[("seed", "integer", ""), ("background", "boolean", "")];
        let error =
            |arguments: Value| Args::check("t", specs, &["seed"], &arguments, &paths).err().unwrap().to_string();
        assert_eq!(
            error(serde_json::json!({"seed": "one"})),
            "t: \"seed\" must be a whole number (0, 1, 2, …), not \"one\""
        );
        assert_eq!(error(serde_json::json!({"seed": -1})), "t: \"seed\" must be a whole number (0, 1, 2, …), not -1");
        assert_eq!(
            error(serde_json::json!({"seed": 1, "background": 1})),
            "t: \"background\" must be true or false, not 1"
        );
        assert_eq!(error(serde_json::json!({})), "t: \"seed\" is required");
    }
}
