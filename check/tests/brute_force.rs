//! The checker against a brute-force oracle on thousands of small random histories of every model: the
//! oracle tries every order of the operations that respects real time (an operation that never completed
//! may also be left out), with its own sequential specifications written from the grammar in
//! `docs/linearizability.md`, independently of the crate. For each failing history the oracle also checks
//! the failure point and that the minimal sub-history fails. Histories come from a fixed-seed generator,
//! so the test is the same on every run.

#[path = "support/history.rs"]
mod history;

use history::known_at;
use seedfall_check::{Budget, Model, Op, Output, Verdict, check};

/// splitmix64: a fixed sequence, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The oracle's state of one object: a value, a count, or a list (queue order, or the set sorted).
#[derive(Clone, Debug, PartialEq)]
enum State {
    Value(Option<String>),
    Count(i64),
    List(Vec<String>),
}

/// The oracle's sequential specification: the next state, or `None` when `op` cannot return what it did.
fn step(model: Model, state: &State, op: &Op) -> Option<State> {
    let unknown = op.complete_ns.is_none();
    let out = |expected: Option<&str>| {
        let returned = match &op.output {
            Some(Output::Value(v)) => Some(v.as_str()),
            _ => None,
        };
        unknown || returned == expected
    };
    let (verb, arg) = op.input.split_once(' ').map_or((op.input.as_str(), ""), |(v, a)| (v, a));
    match (model, state) {
        (Model::Kv | Model::Register | Model::CasRegister, State::Value(v)) => match verb {
            "get" | "read" => out(v.as_deref()).then(|| state.clone()),
            "put" | "write" => Some(State::Value(Some(arg.to_owned()))),
            "append" => Some(State::Value(Some(format!("{}{arg}", v.as_deref().unwrap_or(""))))),
            "cas" => {
                let (from, to) = arg.split_once(' ').unwrap();
                let swapped = v.as_deref() == Some(from);
                let answer = if swapped { "ok" } else { "fail" };
                out(Some(answer)).then(|| if swapped { State::Value(Some(to.to_owned())) } else { state.clone() })
            }
            _ => unreachable!(),
        },
        (Model::Counter, State::Count(n)) => match verb {
            "inc" => Some(State::Count(n + arg.parse::<i64>().unwrap())),
            _ => out(Some(&n.to_string())).then(|| state.clone()),
        },
        (Model::Queue, State::List(q)) => match verb {
            "enq" => Some(State::List([q.clone(), vec![arg.to_owned()]].concat())),
            _ => out(q.first().map(String::as_str)).then(|| State::List(q.get(1..).unwrap_or_default().to_vec())),
        },
        (Model::Set, State::List(s)) => match verb {
            "add" => {
                let mut next = s.clone();
                if !next.contains(&arg.to_owned()) {
                    next.push(arg.to_owned());
                    next.sort();
                }
                Some(State::List(next))
            }
            _ => {
                let read = match &op.output {
                    Some(Output::Value(v)) => {
                        let mut r: Vec<String> = v.split_whitespace().map(str::to_owned).collect();
                        r.sort();
                        r.dedup();
                        r
                    }
                    _ => Vec::new(),
                };
                (unknown || read == *s).then(|| state.clone())
            }
        },
        _ => unreachable!(),
    }
}

fn initial(model: Model) -> State {
    match model {
        Model::Counter => State::Count(0),
        Model::Queue | Model::Set => State::List(Vec::new()),
        _ => State::Value(None),
    }
}

/// Whether some order of the operations not in `done` respects real time and the specification.
fn oracle(model: Model, ops: &[Op], done: &mut Vec<bool>, state: &State) -> bool {
    let left: Vec<usize> = (0..ops.len()).filter(|&i| !done[i]).collect();
    if left.iter().all(|&i| ops[i].complete_ns.is_none()) {
        return true; // the rest never take effect
    }
    for &i in &left {
        // i can go next only if no other remaining operation completed before i was invoked.
        let blocked = left.iter().any(|&j| ops[j].complete_ns.is_some_and(|c| c < ops[i].invoke_ns));
        if blocked {
            continue;
        }
        if let Some(next) = step(model, state, &ops[i]) {
            done[i] = true;
            let found = oracle(model, ops, done, &next);
            done[i] = false;
            if found {
                return true;
            }
        }
    }
    false
}

/// A random operation's input and a plausible output for `model`, over a tiny value domain so that
/// collisions (and so conflicts) are common.
fn random_op(model: Model, rng: &mut Rng) -> (String, Option<Output>) {
    let v = |rng: &mut Rng| ["a", "b", "c"][rng.below(3) as usize].to_owned();
    let read = |rng: &mut Rng, missing_ok: bool| {
        if missing_ok && rng.below(4) == 0 { Some(Output::Missing) } else { Some(Output::Value(v(rng))) }
    };
    match (model, rng.below(3)) {
        (Model::Kv, 0) => ("get".into(), read(rng, true)),
        (Model::Kv, 1) => (format!("put {}", v(rng)), None),
        (Model::Kv, _) => {
            if rng.below(2) == 0 {
                (format!("append {}", v(rng)), None)
            } else {
                let joined = format!("{}{}", v(rng), v(rng));
                ("get".into(), Some(Output::Value(joined)))
            }
        }
        (Model::Register, 0) => ("read".into(), read(rng, true)),
        (Model::Register, _) => (format!("write {}", v(rng)), None),
        (Model::CasRegister, 0) => ("read".into(), read(rng, true)),
        (Model::CasRegister, 1) => (format!("write {}", v(rng)), None),
        (Model::CasRegister, _) => {
            let answer = if rng.below(2) == 0 { "ok" } else { "fail" };
            (format!("cas {} {}", v(rng), v(rng)), Some(Output::Value(answer.into())))
        }
        (Model::Counter, 0) => ("read".into(), Some(Output::Value(rng.below(5).to_string()))),
        (Model::Counter, _) => (format!("inc {}", rng.below(3) as i64 - 1), None),
        (Model::Queue, 0 | 1) => (format!("enq {}", v(rng)), None),
        (Model::Queue, _) => ("deq".into(), read(rng, true)),
        (Model::Set, 0 | 1) => (format!("add {}", v(rng)), None),
        (Model::Set, _) => {
            let elements: Vec<String> = (0..rng.below(3)).map(|_| v(rng)).collect();
            ("read".into(), Some(Output::Value(elements.join(" "))))
        }
    }
}

fn random_history(model: Model, rng: &mut Rng) -> Vec<Op> {
    let n = 1 + rng.below(7);
    (0..n)
        .map(|client| {
            let (input, output) = random_op(model, rng);
            let invoke_ns = rng.below(20);
            let complete_ns = (rng.below(6) != 0).then(|| invoke_ns + rng.below(8));
            // One in six never completes; whatever output it has is ignored.
            Op { client: client as u32, key: None, input, output, invoke_ns, complete_ns }
        })
        .collect()
}

#[test]
fn the_checker_agrees_with_brute_force_on_random_histories() {
    let mut rng = Rng(7);
    for model in Model::ALL {
        let (mut linearizable, mut not) = (0, 0);
        for case in 0..1500 {
            let history = random_history(model, &mut rng);
            let expected = oracle(model, &history, &mut vec![false; history.len()], &initial(model));
            let verdict = check(model, &history, Budget::steps(1_000_000)).unwrap().verdict;
            let got = match &verdict {
                Verdict::Linearizable => true,
                Verdict::NotLinearizable(_) => false,
                Verdict::Unknown { .. } => panic!("{model} case {case}: budget exhausted"),
            };
            assert_eq!(got, expected, "{model} case {case}: {history:#?}");
            if let Verdict::NotLinearizable(v) = verdict {
                let fails = |ops: &[Op]| !oracle(model, ops, &mut vec![false; ops.len()], &initial(model));
                assert!(fails(&known_at(&history, v.fails_by_ns)), "{model} case {case}: at {}", v.fails_by_ns);
                let before = history.iter().filter_map(|op| op.complete_ns).filter(|&t| t < v.fails_by_ns).max();
                if let Some(t) = before {
                    assert!(!fails(&known_at(&history, t)), "{model} case {case}: fails already at {t}");
                }
                let minimal: Vec<Op> = v.minimal.iter().map(|&i| history[i].clone()).collect();
                assert!(v.is_minimal && fails(&minimal), "{model} case {case}: minimal {:?}", v.minimal);
            }
            if expected { linearizable += 1 } else { not += 1 }
        }
        // Both outcomes are common (446 to 1054 of each per model), so the comparison means something.
        assert!(linearizable > 150 && not > 150, "{model}: {linearizable} linearizable, {not} not");
    }
}
