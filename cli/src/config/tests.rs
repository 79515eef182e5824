use super::*;
use seedfall_host::fs::FsModel;
use seedfall_host::knob::KnobValue;
use seedfall_host::preempt::strategy::Strategy;
use seedfall_host::vtime::SimDuration;
use seedfall_host::world::fault;

const BASE: &str = "/proj/kv";

fn parse_ok(text: &str) -> Config {
    parse(text, Path::new(BASE)).unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str) -> ConfigError {
    match parse(text, Path::new(BASE)) {
        Ok(config) => panic!("expected an error, parsed {config:?}"),
        Err(e) => e,
    }
}

/// The error message for a config made of a valid workload plus `extra`
/// (top-level fields, starting with a comma).
fn message(extra: &str) -> String {
    error(&with(extra)).to_string()
}

fn with(extra: &str) -> String {
    format!(r#"{{"workload": {{"name": "client", "pkg": "./client"}}{extra}}}"#)
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// The value of the `faults` knob named `name`.
fn knob(faults: &FaultConfig, name: &str) -> KnobValue {
    let knobs = fault::knobs();
    faults.get(knobs.iter().find(|k| k.name == name).unwrap_or_else(|| panic!("no knob {name}")))
}

fn number(x: f64) -> KnobValue {
    KnobValue::Number(x)
}

fn span(n: u64) -> SimDuration {
    SimDuration::from_ns(n * 1_000_000)
}

/// A `[min, max]` range in milliseconds.
fn range_ms(min: u64, max: u64) -> KnobValue {
    KnobValue::Range(span(min), span(max))
}

/// DESIGN.md §1's example, verbatim.
const DESIGN_EXAMPLE: &str = r#"{
  "nodes": [
    { "name": "server", "pkg": "./server", "args": ["-fixed"], "env": {"K": "V"} },
    { "name": "n", "pkg": "./raftnode", "count": 3 },
    { "name": "cache", "wasm": "./prebuilt/cache.wasm", "supervise": true }
  ],
  "workload": { "name": "client", "pkg": "./client" },
  "duration": "60s",
  "watchdog": "10s",
  "preempt": { "strategy": "pct", "depth": 2, "steps": 400000, "loops": false },
  "faults": {
    "crash_per_sec": 0.5, "crash_downtime": ["100ms", "1s"],
    "crash_on_io": 0.005, "torn_writes": true, "fsync_eio": 0.01, "strict_dirs": true,
    "partition_per_sec": 0.2, "partition_length": ["200ms", "2s"]
  }
}"#;

#[test]
fn the_overlays_are_switches() {
    let plain = parse_ok(&with(""));
    assert!(!plain.net_overlay && !plain.compat_overlay);
    let both = parse_ok(&with(r#", "net_overlay": true, "compat_overlay": true"#));
    assert!(both.net_overlay && both.compat_overlay);
    assert!(error(&with(r#", "net_overlay": 1"#)).to_string().contains("net_overlay"));
}

#[test]
fn the_design_example_parses() {
    let config = parse_ok(DESIGN_EXAMPLE);
    let names: Vec<&str> = config.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["server", "n1", "n2", "n3", "cache"]);
    assert_eq!(
        config.nodes[0],
        NodeSpec {
            name: "server".into(),
            group: "server".into(),
            source: Source::Pkg("/proj/kv/server".into()),
            args: vec!["-fixed".into()],
            env: vec![("K".into(), "V".into())],
            supervise: false,
        }
    );
    assert_eq!(config.nodes[4].source, Source::Wasm("/proj/kv/prebuilt/cache.wasm".into()));
    assert!(config.nodes[4].supervise);
    assert_eq!(
        config.workload,
        WorkloadSpec {
            name: "client".into(),
            source: Source::Pkg("/proj/kv/client".into()),
            args: vec![],
            env: vec![]
        }
    );
    assert_eq!(config.base_dir, Path::new(BASE));
    assert_eq!(config.duration, Duration::from_secs(60));
    assert_eq!(config.watchdog, Duration::from_secs(10));
    assert_eq!(
        config.preempt,
        PreemptConfig { strategy: Strategy::Pct { depth: 2, steps: 400_000 }, loops: false, record: false }
    );
    let given = [
        ("crash_per_sec", number(0.5)),
        ("crash_downtime", range_ms(100, 1000)),
        ("crash_on_io", number(0.005)),
        ("torn_writes", KnobValue::Switch(true)),
        ("fsync_eio", number(0.01)),
        ("strict_dirs", KnobValue::Switch(true)),
        ("partition_per_sec", number(0.2)),
        ("partition_length", range_ms(200, 2000)),
    ];
    for (name, value) in given {
        assert_eq!(knob(&config.faults, name), value, "{name}");
    }
}

#[test]
fn defaults_for_a_minimal_config() {
    let config = parse_ok(r#"{"workload": {"pkg": "client"}}"#);
    assert!(config.nodes.is_empty());
    assert_eq!(config.workload.name, "workload");
    assert_eq!(config.workload.source, Source::Pkg("/proj/kv/client".into()));
    assert_eq!(config.duration, DEFAULT_DURATION);
    assert_eq!(config.duration, Duration::from_secs(60));
    assert_eq!(config.watchdog, Duration::from_secs(10));
    assert_eq!(config.memory, 2 << 30, "DESIGN.md §1: 2 GiB per node");
    assert_eq!(config.preempt, PreemptConfig::default());
    assert_eq!(config.preempt.strategy, Strategy::None);
    assert_eq!(config.faults, FaultConfig::default());
    assert_eq!(knob(&config.faults, "crash_per_sec"), number(0.0));
    assert_eq!(knob(&config.faults, "crash_downtime"), range_ms(100, 1000));
}

#[test]
fn count_expands_to_numbered_nodes_sharing_everything_else() {
    let config = parse_ok(&with(
        r#", "nodes": [{"name": "n", "pkg": "./raft", "count": 3, "args": ["-a"], "env": {"X": "1"}, "supervise": true},
                       {"name": "solo", "wasm": "s.wasm", "count": 1},
                       {"name": "db-", "pkg": "./db", "count": 2}]"#,
    ));
    let names: Vec<&str> = config.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["n1", "n2", "n3", "solo1", "db-1", "db-2"]);
    let groups: Vec<&str> = config.nodes.iter().map(|n| n.group.as_str()).collect();
    assert_eq!(groups, ["n", "n", "n", "solo", "db-", "db-"], "what findings group a count's nodes by");
    assert_eq!(
        message(r#", "nodes": [{"name": "n", "pkg": "a", "count": 99999999999}]"#),
        "`nodes[0].count` must be at most 1000, found 99999999999"
    );
    assert_eq!(
        message(r#", "nodes": [{"name": "n", "pkg": "a", "count": 0}]"#),
        "`nodes[0].count` must be at least 1, found 0"
    );
    let lost = |node: &str| Failure {
        class: seedfall_host::world::Class::Workload,
        node: node.into(),
        incarnation: 4,
        property: None,
        message: "entry 12 lost".into(),
        at_ns: None,
    };
    assert_eq!(config.signature(&lost("n2")), config.signature(&lost("n3")), "a count's nodes fail alike");
    assert_ne!(config.signature(&lost("n2")), config.signature(&lost("solo1")));
    assert_eq!(config.signature(&lost("world")), lost("world").signature(), "a name no node has stays");
    for node in &config.nodes[..3] {
        assert_eq!(node.source, Source::Pkg("/proj/kv/raft".into()));
        assert_eq!(node.args, ["-a"]);
        assert_eq!(node.env, [("X".to_string(), "1".to_string())]);
        assert!(node.supervise);
    }
}

#[test]
fn paths_are_relative_to_the_config_directory() {
    let config = parse_ok(&with(
        r#", "nodes": [{"name": "a", "pkg": "./server/"}, {"name": "b", "pkg": "../shared/./x"},
                       {"name": "c", "wasm": "/abs/c.wasm"}, {"name": "d", "pkg": "."}]"#,
    ));
    let sources: Vec<&Source> = config.nodes.iter().map(|n| &n.source).collect();
    assert_eq!(
        sources,
        [
            &Source::Pkg("/proj/kv/server".into()),
            &Source::Pkg("/proj/shared/x".into()),
            &Source::Wasm("/abs/c.wasm".into()),
            &Source::Pkg("/proj/kv".into()),
        ]
    );
    // A relative base directory is made absolute against the current directory.
    let config = parse(r#"{"workload": {"pkg": "./client"}}"#, Path::new("examples/./kv")).unwrap();
    let cwd = std::env::current_dir().unwrap();
    assert_eq!(config.workload.source, Source::Pkg(cwd.join("examples/kv/client")));
    let config = parse(r#"{"workload": {"pkg": "./client"}}"#, Path::new("")).unwrap();
    assert_eq!(config.workload.source, Source::Pkg(cwd.join("client")));
}

#[test]
fn env_keeps_the_written_order() {
    let config = parse_ok(r#"{"workload": {"pkg": "c", "env": {"Z": "1", "A": "2", "M": "3"}}}"#);
    let keys: Vec<&str> = config.workload.env.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["Z", "A", "M"]);
}

#[test]
fn preempt_strategies() {
    let strategy = |json: &str| parse_ok(&with(&format!(r#", "preempt": {json}"#))).preempt;
    assert_eq!(strategy(r#"{}"#), PreemptConfig::default());
    assert_eq!(
        strategy(r#"{"strategy": "random", "loops": true}"#),
        PreemptConfig { strategy: Strategy::Random, loops: true, record: false }
    );
    assert_eq!(strategy(r#"{"strategy": "pct"}"#).strategy, Strategy::Pct { depth: 2, steps: 400_000 });
    assert_eq!(
        strategy(r#"{"strategy": "pct", "depth": 3.0, "steps": 10}"#).strategy,
        Strategy::Pct { depth: 3, steps: 10 }
    );
    assert_eq!(strategy(r#"{"strategy": "calls", "every": 8}"#).strategy, Strategy::Calls { every: 8 });
    // The reference's names (DESIGN.md §1): `calls` for N, `interleave` for `random`.
    assert_eq!(strategy(r#"{"strategy": "calls", "calls": 8}"#).strategy, Strategy::Calls { every: 8 });
    assert_eq!(strategy(r#"{"interleave": true}"#).strategy, Strategy::Random);
    assert_eq!(strategy(r#"{"interleave": true, "strategy": "random"}"#).strategy, Strategy::Random);
    assert_eq!(strategy(r#"{"interleave": false}"#).strategy, Strategy::None);
}

// ---- the error classes, each with its exact message ----

#[test]
fn unknown_fields_name_the_path_and_the_nearest_field() {
    let e = error(&with(r#", "duraton": "1s""#));
    assert_eq!(e.to_string(), "unknown field `duraton`; did you mean `duration`?");
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::UnknownField, "duraton"));

    let e = error(&with(r#", "faults": {"crash_per_secc": 1}"#));
    assert_eq!(e.to_string(), "unknown field `faults.crash_per_secc`; did you mean `crash_per_sec`?");
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::UnknownField, "faults.crash_per_secc"));

    assert_eq!(
        message(r#", "nodes": [{"name": "a", "pkg": "a"}, {"name": "b", "pkg": "b", "supervize": true}]"#),
        "unknown field `nodes[1].supervize`; did you mean `supervise`?"
    );
    assert_eq!(
        message(r#", "preempt": {"strategy": "pct", "dept": 2}"#),
        "unknown field `preempt.dept`; did you mean `depth`?"
    );
    assert_eq!(message(r#", "Duration": "1s""#), "unknown field `Duration`; did you mean `duration`?");
    // A transposition is one edit.
    assert_eq!(
        message(r#", "faults": {"tron_writes": true}"#),
        "unknown field `faults.tron_writes`; did you mean `torn_writes`?"
    );
}

#[test]
fn unknown_field_known_elsewhere_or_far_from_everything() {
    assert_eq!(
        message(r#", "crash_per_sec": 1"#),
        "unknown field `crash_per_sec`; `crash_per_sec` is a field of `faults`"
    );
    assert_eq!(
        error(r#"{"workload": {"pkg": "c", "supervise": true}}"#).to_string(),
        "unknown field `workload.supervise`; `supervise` is a field of `nodes[]`"
    );
    assert_eq!(message(r#", "name": "x""#), "unknown field `name`; `name` is a field of `nodes[]` and `workload`");
    // The list is the knob registry's, in its order: a new fault kind changes it, not this test.
    let names: Vec<&str> = fault::knobs().iter().map(|k| k.name).collect();
    assert_eq!(
        message(r#", "faults": {"bananas": 1}"#),
        format!("unknown field `faults.bananas`; known fields: {}", names.join(", "))
    );
    assert!(names.starts_with(&["torn_writes", "torn_sector", "reorder_writes"]) && names.ends_with(&["swarm"]));
}

#[test]
fn udp_loss_and_dup_are_probabilities_per_datagram() {
    let config = parse_ok(&with(r#", "faults": {"udp_loss": 0.05, "udp_dup": 0.02}"#));
    assert_eq!((knob(&config.faults, "udp_loss"), knob(&config.faults, "udp_dup")), (number(0.05), number(0.02)));
    let off = parse_ok(&with(r#", "faults": {}"#));
    assert_eq!((knob(&off.faults, "udp_loss"), knob(&off.faults, "udp_dup")), (number(0.0), number(0.0)), "off");
    let e = error(&with(r#", "faults": {"udp_los": 0.1}"#));
    assert_eq!(e.to_string(), "unknown field `faults.udp_los`; did you mean `udp_loss`?");
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::UnknownField, "faults.udp_los"));
    assert_eq!(
        message(r#", "faults": {"udp_dup": 1.5}"#),
        "`faults.udp_dup` is a probability and must be between 0 and 1, found 1.5"
    );
}

#[test]
fn time_faults_liveness_and_finally() {
    let config = parse_ok(&with(
        r#", "faults": {"clock_skew": "500ms", "clock_jump_per_sec": 0.05, "clock_jump": "2s",
           "pause_per_sec": 0.1, "pause_length": ["100ms", "3s"]},
           "liveness": {"within": "20s"}, "finally": {"pkg": "./check", "args": ["-v"]}"#,
    ));
    let f = &config.faults;
    assert_eq!(knob(f, "clock_skew"), KnobValue::Duration(span(500)));
    assert_eq!((knob(f, "clock_jump_per_sec"), knob(f, "clock_jump")), (number(0.05), KnobValue::Duration(span(2000))));
    assert_eq!((knob(f, "pause_per_sec"), knob(f, "pause_length")), (number(0.1), range_ms(100, 3000)));
    assert_eq!(config.liveness, Some(ms(20_000)));
    let net = parse_ok(&with(
        r#", "faults": {"partition_groups": 3, "partition_oneway": 0.3, "net_latency": ["1ms", "5ms"]}"#,
    ))
    .faults;
    assert_eq!((knob(&net, "partition_groups"), knob(&net, "partition_oneway")), (KnobValue::Whole(3), number(0.3)));
    assert_eq!(knob(&net, "net_latency"), range_ms(1, 5));
    let disk = parse_ok(&with(r#", "faults": {"reorder_writes": true, "fs_model": "page_independent"}"#)).faults;
    let model = |faults: &FaultConfig| seedfall_host::fs::DiskConfig::conditions(faults).fs_model;
    assert_eq!((knob(&disk, "reorder_writes"), model(&disk)), (KnobValue::Switch(true), FsModel::PageIndependent));
    assert_eq!(model(&parse_ok(&with("")).faults), FsModel::Ext4Ordered);
    let dirs = parse_ok(&with(r#", "faults": {"fs_model": "dir_reorder"}"#)).faults;
    assert_eq!(model(&dirs), FsModel::DirReorder);
    assert_eq!(
        message(r#", "faults": {"fs_model": "ext3"}"#),
        "`faults.fs_model`: unknown model \"ext3\" (known: ext4_ordered, page_independent, dir_reorder)"
    );
    let corrupt = parse_ok(&with(r#", "faults": {"corrupt_on_crash": 0.25}"#)).faults;
    assert_eq!(knob(&corrupt, "corrupt_on_crash"), number(0.25));
    let latency = parse_ok(&with(r#", "faults": {"disk_latency": ["1ms", "20ms"]}"#)).faults;
    assert_eq!(knob(&latency, "disk_latency"), range_ms(1, 20));
    let bitrot = parse_ok(&with(r#", "faults": {"bitrot_per_sec": 0.01}"#)).faults;
    assert_eq!(knob(&bitrot, "bitrot_per_sec"), number(0.01));
    let clogs =
        parse_ok(&with(r#", "faults": {"clog_per_sec": 0.5, "clog_length": ["10ms", "1s"], "clogs": ["jam"]}"#)).faults;
    assert_eq!((knob(&clogs, "clog_per_sec"), knob(&clogs, "clog_length")), (number(0.5), range_ms(10, 1000)));
    assert_eq!(knob(&clogs, "clogs"), KnobValue::SetOf(0b010), "jam, the second form");
    let all = KnobValue::SetOf(0b111);
    assert_eq!(knob(&parse_ok(&with("")).faults, "clogs"), all, "all three forms unless `clogs` says");
    assert_eq!(
        message(r#", "faults": {"clogs": ["stop", "plug"]}"#),
        "`faults.clogs[1]`: unknown clog \"plug\" (known: stop, jam, slow)"
    );
    assert_eq!(message(r#", "faults": {"clogs": []}"#), "`faults.clogs` must name at least one of stop, jam, slow");
    assert_eq!(
        message(r#", "faults": {"partition_groups": 1}"#),
        "`faults.partition_groups` must be at least 2, found 1"
    );
    let finally = config.finally.expect("finally");
    assert_eq!((finally.source, finally.args), (Source::Pkg("/proj/kv/check".into()), vec!["-v".to_string()]));
    assert_eq!(parse_ok(&with(r#", "liveness": {}"#)).liveness, Some(super::DEFAULT_LIVENESS_WITHIN));
    assert_eq!(parse_ok(&with("")).liveness, None);
    // Mistakes inside them name the field.
    let e = error(&with(r#", "liveness": {"withn": "30s"}"#));
    assert_eq!(e.to_string(), "unknown field `liveness.withn`; did you mean `within`?");
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::UnknownField, "liveness.withn"));
    assert_eq!(
        message(r#", "finally": {"pkg": "./check", "wasm": "c.wasm"}"#),
        "unknown field `finally.wasm`; `wasm` is a field of `nodes[]` and `workload`"
    );
    assert_eq!(message(r#", "finally": {"args": []}"#).split(':').next(), Some("`finally.pkg` is missing"));
    assert_eq!(message(r#", "within": "30s""#), "unknown field `within`; `within` is a field of `liveness`");
    assert_eq!(
        message(r#", "faults": {"clock_skew": "0s"}"#),
        "`faults.clock_skew` must be a positive duration, found \"0s\""
    );
    // The finally check runs as node `finally`: no other node may take the name.
    let e = error(&with(r#", "nodes": [{"name": "finally", "pkg": "./x"}], "finally": {"pkg": "./check"}"#));
    assert_eq!(e.kind, ErrorKind::Duplicate, "{e}");
}

#[test]
fn lost_and_misdirected_writes_are_probabilities_per_fsync() {
    let config = parse_ok(&with(r#", "faults": {"lost_write": 0.001, "misdirected_write": 0.25}"#));
    let f = &config.faults;
    assert_eq!((knob(f, "lost_write"), knob(f, "misdirected_write")), (number(0.001), number(0.25)));
    let off = parse_ok(&with(r#", "faults": {}"#));
    assert_eq!(off.faults, FaultConfig::default(), "off by default");
    // A typo still errors, naming the field and the nearest known one.
    let e = error(&with(r#", "faults": {"lost_writes": 0.1}"#));
    assert_eq!(e.to_string(), "unknown field `faults.lost_writes`; did you mean `lost_write`?");
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::UnknownField, "faults.lost_writes"));
    assert_eq!(
        message(r#", "faults": {"misdirected_write": 2}"#),
        "`faults.misdirected_write` is a probability and must be between 0 and 1, found 2"
    );
}

#[test]
fn names_the_design_does_not_use_are_unknown() {
    // Once reserved under these names; DESIGN.md §1 calls them otherwise.
    assert_eq!(
        message(r#", "faults": {"net_reset": 0.1}"#),
        "unknown field `faults.net_reset`; did you mean `net_reset_per_sec`?"
    );
    assert_eq!(
        message(r#", "faults": {"pauses": true}"#),
        "unknown field `faults.pauses`; did you mean `pause_per_sec`?"
    );
}

#[test]
fn wrong_types_name_the_field_and_the_expected_type() {
    let e = error(&with(r#", "faults": {"torn_writes": "yes"}"#));
    assert_eq!(e.to_string(), "`faults.torn_writes` must be true or false, found \"yes\"");
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::WrongType, "faults.torn_writes"));
    assert_eq!(
        message(r#", "duration": 60"#),
        "`duration` must be a duration string like \"500ms\" or \"1m0s\", found 60"
    );
    assert_eq!(message(r#", "nodes": {"name": "a"}"#), "`nodes` must be an array of nodes, found an object");
    assert_eq!(message(r#", "nodes": ["server"]"#), "`nodes[0]` must be a node object, found \"server\"");
    assert_eq!(
        message(r#", "nodes": [{"name": "a", "pkg": "a", "args": ["-n", 3]}]"#),
        "`nodes[0].args[1]` must be a string, found 3"
    );
    assert_eq!(
        message(r#", "nodes": [{"name": "a", "pkg": "a", "env": {"K": 1}}]"#),
        "`nodes[0].env.K` must be a string, found 1"
    );
    assert_eq!(
        message(r#", "faults": {"crash_on_io": "0.1"}"#),
        "`faults.crash_on_io` must be a probability (a number from 0 to 1), found \"0.1\""
    );
    assert_eq!(
        message(r#", "nodes": [{"name": "a", "pkg": "a", "count": 2.5}]"#),
        "`nodes[0].count` must be a whole number >= 1, found 2.5"
    );
    assert_eq!(message(r#", "faults": null"#), "`faults` must be an object of fault settings, found null");
    assert_eq!(error("[1, 2]").to_string(), "the config must be a JSON object, found an array");
}

#[test]
fn pkg_and_wasm_exactly_one() {
    let e = error(&with(r#", "nodes": [{"name": "a", "pkg": "./a", "wasm": "a.wasm"}]"#));
    assert_eq!(
        e.to_string(),
        "`nodes[0]` has both `pkg` and `wasm`; give one: `pkg` is a Go package directory, `wasm` a prebuilt module"
    );
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::Invalid, "nodes[0]"));
    let e = error(&with(r#", "nodes": [{"name": "a", "args": []}]"#));
    assert_eq!(e.to_string(), "`nodes[0]` needs `pkg` (a Go package directory) or `wasm` (a prebuilt .wasm module)");
    assert_eq!(e.kind, ErrorKind::Missing);
    assert_eq!(
        error(r#"{"workload": {"name": "c"}}"#).to_string(),
        "`workload` needs `pkg` (a Go package directory) or `wasm` (a prebuilt .wasm module)"
    );
    assert_eq!(message(r#", "nodes": [{"name": "a", "pkg": ""}]"#), "`nodes[0].pkg` must not be empty");
}

#[test]
fn node_names_are_unique_after_expansion() {
    let e = error(&with(r#", "nodes": [{"name": "a", "pkg": "a"}, {"name": "a", "pkg": "b"}]"#));
    assert_eq!(e.to_string(), "duplicate node name `a`: defined by `nodes[0]` and by `nodes[1]`");
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::Duplicate, "nodes[1].name"));
    assert_eq!(
        message(r#", "nodes": [{"name": "n", "pkg": "a", "count": 3}, {"name": "n2", "pkg": "b"}]"#),
        "duplicate node name `n2`: defined by `nodes[0]` (count 3) and by `nodes[1]`"
    );
    assert_eq!(
        message(r#", "nodes": [{"name": "client", "pkg": "a"}]"#),
        "duplicate node name `client`: defined by `nodes[0]` and by `workload`"
    );
}

#[test]
fn node_names_must_be_host_names() {
    let e = error(&with(r#", "nodes": [{"name": "Server", "pkg": "a"}]"#));
    assert_eq!(
        e.to_string(),
        "`nodes[0].name` \"Server\" cannot be a host name: use lowercase letters, digits and '-', starting with a letter"
    );
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::Invalid, "nodes[0].name"));
    for bad in ["a_b", "a.b", "a#1", "1a", "-a", "a-", "a b"] {
        let e = error(&with(&format!(r#", "nodes": [{{"name": "{bad}", "pkg": "a"}}]"#)));
        assert!(e.to_string().contains("cannot be a host name"), "{bad}: {e}");
    }
    assert_eq!(message(r#", "nodes": [{"name": "", "pkg": "a"}]"#), "`nodes[0].name` must not be empty");
    assert_eq!(message(r#", "nodes": [{"pkg": "a"}]"#), "`nodes[0].name` is missing");
    assert_eq!(
        message(r#", "nodes": [{"name": "localhost", "pkg": "a"}]"#),
        "`nodes[0].name`: \"localhost\" is reserved"
    );
    let long = "a".repeat(63);
    assert_eq!(
        message(&format!(r#", "nodes": [{{"name": "{long}", "pkg": "a", "count": 2}}]"#)),
        format!("`nodes[0].name`: node name `{long}1` is longer than 63 characters")
    );
    assert_eq!(
        error(r#"{"workload": {"name": "Client", "pkg": "c"}}"#).to_string(),
        "`workload.name` \"Client\" cannot be a host name: use lowercase letters, digits and '-', starting with a letter"
    );
}

#[test]
fn durations_must_parse_and_be_positive() {
    let e = error(&with(r#", "watchdog": "10""#));
    assert_eq!(e.to_string(), "`watchdog`: \"10\" is not a duration like 500ms, 10s or 1m30s");
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::Invalid, "watchdog"));
    assert_eq!(message(r#", "duration": "0s""#), "`duration` must be a positive duration, found \"0s\"");
    assert_eq!(
        message(r#", "faults": {"crash_downtime": ["1x", "2s"]}"#),
        "`faults.crash_downtime[0]`: \"1x\" is not a duration like 500ms, 10s or 1m30s"
    );
    // Too large for the parser's float arithmetic: an error, not a panic.
    assert_eq!(
        message(r#", "duration": "99999999999999999999999h""#),
        "`duration`: \"99999999999999999999999h\" is too long a duration"
    );
    assert_eq!(parse_ok(&with(r#", "duration": "1m0s", "watchdog": "1.5s""#)).watchdog, ms(1500));
    assert_eq!(parse_ok(&with(r#", "watchdog": "100ms""#)).watchdog, ms(100));
    let e = error(&with(r#", "watchdog": "99ms""#));
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::Invalid, "watchdog"));
    assert!(e.to_string().contains("`watchdog` must be at least 100ms") && e.to_string().contains("99ms"), "{e}");
}

#[test]
fn probabilities_rates_and_ranges_are_checked() {
    let e = error(&with(r#", "faults": {"crash_on_io": 1.5}"#));
    assert_eq!(e.to_string(), "`faults.crash_on_io` is a probability and must be between 0 and 1, found 1.5");
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::Invalid, "faults.crash_on_io"));
    assert_eq!(
        message(r#", "faults": {"fsync_eio": -0.1}"#),
        "`faults.fsync_eio` is a probability and must be between 0 and 1, found -0.1"
    );
    assert_eq!(
        message(r#", "faults": {"crash_per_sec": -1}"#),
        "`faults.crash_per_sec` is a rate and must be at least 0, found -1"
    );
    // Issue 19: 1e-300 hung planning, 1e-11 wrapped into the past, 1e9 planned a fault per nanosecond.
    for rate in ["1e-300", "1e-11", "1e9", "1e308"] {
        let e = error(&with(&format!(r#", "faults": {{"partition_per_sec": {rate}}}"#)));
        assert_eq!((e.kind, e.field.as_str()), (ErrorKind::Invalid, "faults.partition_per_sec"), "{e}");
        let text = e.to_string();
        assert!(
            text.starts_with(
                "`faults.partition_per_sec` is a rate per second and must be 0 (off) or between 1e-6 and 1e6, found "
            ),
            "{text}"
        );
        assert!(text.ends_with(&format!("found {rate}")), "{text}");
    }
    let edges = parse_ok(&with(r#", "faults": {"crash_per_sec": 1e-6, "partition_per_sec": 1e6}"#)).faults;
    assert_eq!((knob(&edges, "crash_per_sec"), knob(&edges, "partition_per_sec")), (number(1e-6), number(1e6)));
    let faults = parse_ok(&with(r#", "faults": {"crash_on_io": 1, "fsync_eio": 0, "partition_per_sec": 3}"#)).faults;
    let read = ["crash_on_io", "fsync_eio", "partition_per_sec"].map(|name| knob(&faults, name));
    assert_eq!(read, [number(1.0), number(0.0), number(3.0)]);

    let e = error(&with(r#", "faults": {"crash_downtime": ["2s", "1s"]}"#));
    assert_eq!(e.to_string(), "`faults.crash_downtime`: min \"2s\" is greater than max \"1s\"");
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::Invalid, "faults.crash_downtime"));
    assert_eq!(
        message(r#", "faults": {"partition_length": ["1s"]}"#),
        "`faults.partition_length` must be a [min, max] pair of durations like [\"100ms\", \"1s\"], found 1 items"
    );
    assert_eq!(
        message(r#", "faults": {"partition_length": "1s"}"#),
        "`faults.partition_length` must be a [min, max] pair of durations like [\"100ms\", \"1s\"], found \"1s\""
    );
    let faults = parse_ok(&with(r#", "faults": {"partition_length": ["1s", "1s"]}"#)).faults;
    assert_eq!(knob(&faults, "partition_length"), range_ms(1000, 1000));
}

#[test]
fn preempt_mistakes() {
    assert_eq!(
        message(r#", "preempt": {"strategy": "pcd"}"#),
        "`preempt.strategy`: unknown strategy \"pcd\"; did you mean \"pct\"? (known: none, random, pct, calls)"
    );
    assert_eq!(
        message(r#", "preempt": {"strategy": "fair"}"#),
        "`preempt.strategy`: unknown strategy \"fair\"; (known: none, random, pct, calls)"
    );
    assert_eq!(
        message(r#", "preempt": {"strategy": "calls"}"#),
        "`preempt.calls` is missing: strategy \"calls\" preempts every N counted calls"
    );
    assert_eq!(
        message(r#", "preempt": {"strategy": "pct", "calls": 3}"#),
        "`preempt.calls` only applies to strategy \"calls\", not \"pct\""
    );
    assert_eq!(
        message(r#", "preempt": {"strategy": "calls", "calls": 3, "every": 3}"#),
        "`preempt.every` is the older name of `preempt.calls`: give only `calls`"
    );
    assert_eq!(
        message(r#", "preempt": {"interleave": true, "strategy": "pct"}"#),
        "`preempt.interleave: true` means strategy \"random\", but `preempt.strategy` is \"pct\": give one of them"
    );
    assert_eq!(message(r#", "preempt": {"interleave": 1}"#), "`preempt.interleave` must be true or false, found 1");
    assert_eq!(
        message(r#", "preempt": {"strategy": "random", "depth": 3}"#),
        "`preempt.depth` only applies to strategy \"pct\", not \"random\""
    );
    assert_eq!(
        message(r#", "preempt": {"strategy": "pct", "every": 3}"#),
        "`preempt.every` only applies to strategy \"calls\", not \"pct\""
    );
    assert_eq!(
        message(r#", "preempt": {"strategy": "calls", "every": 0}"#),
        "`preempt.every` must be at least 1, found 0"
    );
}

#[test]
fn file_level_mistakes() {
    let e = error("{\"workload\": {\"pkg\": \"c\"},\n}");
    assert_eq!(e.kind, ErrorKind::Syntax);
    assert_eq!(e.to_string(), "invalid JSON: trailing comma at line 2 column 1");
    let e = error("{\"workload\": {\"pkg\": \"c\"},\n \"duration\": \"1s\", \"duration\": \"2s\"}");
    assert_eq!(e.kind, ErrorKind::Duplicate);
    assert!(e.to_string().starts_with("field `duration` is given twice in one object at line 2"), "{e}");
    assert_eq!(error("  \n").to_string(), "the file is empty; a config is a JSON object with at least a `workload`");
    let e = error(r#"{"nodes": []}"#);
    assert_eq!(e.kind, ErrorKind::Missing);
    assert!(e.to_string().starts_with("`workload` is missing: a config needs the program that drives the system"));
}

#[test]
fn load_prefixes_the_file_and_resolves_beside_it() {
    let dir = std::env::temp_dir().join(format!("seedfall-config-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("kv.json");
    std::fs::write(&file, with(r#", "faults": {"crash_per_secc": 1}"#)).unwrap();
    let e = load(&file).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("{}: unknown field `faults.crash_per_secc`; did you mean `crash_per_sec`?", file.display())
    );
    std::fs::write(&file, DESIGN_EXAMPLE).unwrap();
    let config = load(&file).unwrap();
    assert_eq!(config.base_dir, dir);
    assert_eq!(config.nodes[0].source, Source::Pkg(dir.join("server")));
    let missing = dir.join("nope.json");
    assert_eq!(load(&missing).unwrap_err().to_string(), format!("{}: no such file", missing.display()));
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---- file locations ----

#[test]
fn schedule_paths_beside_the_config() {
    assert_eq!(schedule_path(Path::new("/p/seedfall.json"), 7), Path::new("/p/.seedfall/seed-7.faults.json"));
    assert_eq!(
        schedule_path(Path::new("/p/seedfall.fixed.json"), 7),
        Path::new("/p/.seedfall/seedfall.fixed.seed-7.faults.json")
    );
    assert_eq!(
        schedule_path(Path::new("examples/kvlog/kv.json"), 12),
        Path::new("examples/kvlog/.seedfall/kv.seed-12.faults.json")
    );
    assert_eq!(schedule_path(Path::new("seedfall.json"), 1), Path::new(".seedfall/seed-1.faults.json"));
    assert_eq!(schedule_path(Path::new("./seedfall.json"), 1), Path::new("./.seedfall/seed-1.faults.json"));
    assert_eq!(state_dir(Path::new("/p/x.json")), Path::new("/p/.seedfall"));
    assert_eq!(state_dir(Path::new("seedfall.json")), Path::new(".seedfall"));
}

#[test]
fn the_default_config_file() {
    assert_eq!(config_path(None), Path::new("./seedfall.json"));
    assert_eq!(config_path(Some(Path::new("/no/such/x.json"))), Path::new("/no/such/x.json"));
    let dir = std::env::temp_dir();
    assert_eq!(config_path(Some(&dir)), dir.join("seedfall.json"));
}

/// Issue 12: `faults.disk_bytes` is each node's disk size in bytes, default
/// 1 GiB, from one page to 1 TiB; anything else names the field.
#[test]
fn disk_bytes_is_a_bounded_byte_count() {
    assert_eq!(knob(&parse_ok(&with("")).faults, "disk_bytes"), KnobValue::Whole(1 << 30));
    let mib = parse_ok(&with(r#", "faults": {"disk_bytes": 1048576}"#)).faults;
    assert_eq!(knob(&mib, "disk_bytes"), KnobValue::Whole(1 << 20));
    assert_eq!(
        message(r#", "faults": {"disk_bytes": 1099511627777}"#),
        "`faults.disk_bytes` must be at most 1099511627776 (1 TiB), found 1099511627777"
    );
    assert_eq!(message(r#", "faults": {"disk_bytes": 4095}"#), "`faults.disk_bytes` must be at least 4096, found 4095");
    let e = error(&with(r#", "faults": {"disk_bytes": "1GiB"}"#));
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::WrongType, "faults.disk_bytes"), "{e}");
}

/// Issue 39: `faults.torn_sector` is the sector size torn writes respect,
/// default 1 (any byte), a power of two up to 64 KiB; anything else names the field.
#[test]
fn torn_sector_is_a_power_of_two_byte_count() {
    assert_eq!(knob(&parse_ok(&with("")).faults, "torn_sector"), KnobValue::Whole(1));
    let sectors = parse_ok(&with(r#", "faults": {"torn_writes": true, "torn_sector": 512}"#)).faults;
    assert_eq!(knob(&sectors, "torn_sector"), KnobValue::Whole(512));
    assert_eq!(
        knob(&parse_ok(&with(r#", "faults": {"torn_sector": 65536}"#)).faults, "torn_sector"),
        KnobValue::Whole(65536)
    );
    for bad in ["0", "3", "1000", "131072", "-512", "512.5"] {
        assert_eq!(
            message(&format!(r#", "faults": {{"torn_sector": {bad}}}"#)),
            format!("`faults.torn_sector` must be a power of two from 1 to 65536, found {bad}")
        );
    }
    let e = error(&with(r#", "faults": {"torn_sector": "512"}"#));
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::WrongType, "faults.torn_sector"), "{e}");
    assert_eq!(
        message(r#", "faults": {"torn_sectr": 512}"#),
        "unknown field `faults.torn_sectr`; did you mean `torn_sector`?"
    );
}

/// Issue 19: `memory` is each node's linear-memory cap in bytes, from 16 MiB to
/// wasm32's 4 GiB; anything else names the field.
#[test]
fn memory_is_a_bounded_byte_count() {
    assert_eq!(parse_ok(&with(r#", "memory": 268435456"#)).memory, 256 << 20);
    assert_eq!(parse_ok(&with(r#", "memory": 4294967296"#)).memory, 4 << 30);
    assert_eq!(
        message(r#", "memory": 4294967297"#),
        "`memory` must be at most 4294967296 (wasm32's 4 GiB), found 4294967297"
    );
    assert_eq!(message(r#", "memory": 1000"#), "`memory` must be at least 16777216, found 1000");
    assert_eq!(message(r#", "memory": -1"#), "`memory` must be at least 16777216, found -1");
    let e = error(&with(r#", "memory": "2GiB""#));
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::WrongType, "memory"), "{e}");
}

#[test]
fn history_checks_name_a_model_and_a_level() {
    let config = parse_ok(&with(r#", "linearizable": "cas-register", "isolation": "snapshot""#));
    assert_eq!(config.linearizable, Some(seedfall_check::Model::CasRegister));
    assert_eq!(config.isolation, Some(seedfall_check::txn::Isolation::Snapshot));
    let config = parse_ok(&with(""));
    assert_eq!((config.linearizable, config.isolation), (None, None));
    let e = error(&with(r#", "linearizable": "registr""#));
    assert_eq!(
        (e.kind, e.to_string()),
        (
            ErrorKind::Invalid,
            "`linearizable`: unknown linearizability model \"registr\" (known: kv, register, cas-register, counter, queue, set)"
                .to_string()
        )
    );
    assert_eq!(
        message(r#", "isolation": "serialisable""#),
        "`isolation`: unknown isolation level \"serialisable\" (known: serializable, snapshot, read_committed)"
    );
    assert_eq!(message(r#", "isolation": true"#), "`isolation` must be a string, found true");
}

#[test]
fn patches_name_a_module_and_a_diff_relative_to_the_config() {
    let config = parse_ok(&with(r#", "patches": [{"module": "github.com/a/b", "file": "patches/../fix.patch"}]"#));
    assert_eq!(
        config.patches,
        vec![PatchSpec { module: "github.com/a/b".into(), file: PathBuf::from("/proj/kv/fix.patch") }]
    );
    assert!(parse_ok(&with("")).patches.is_empty());
}

#[test]
fn a_patch_needs_both_fields_and_one_file_per_module() {
    let missing = message(r#", "patches": [{"module": "github.com/a/b"}]"#);
    assert!(missing.contains("`patches[0].file` is missing"), "{missing}");
    let twice = message(r#", "patches": [{"module": "m", "file": "a.patch"}, {"module": "m", "file": "b.patch"}]"#);
    assert!(twice.contains("`m` is patched twice"), "{twice}");
    let unknown = message(r#", "patches": [{"module": "m", "fille": "a.patch"}]"#);
    assert!(unknown.contains("did you mean `file`"), "{unknown}");
}

#[test]
fn a_missing_config_named_by_c_is_not_told_to_use_c() {
    let dir = std::env::temp_dir().join(format!("seedfall-config-open-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("seedfall.json"), DESIGN_EXAMPLE).unwrap();
    let typo = dir.join("seedfal.json");
    assert_eq!(
        open(Some(&typo)).unwrap_err().to_string(),
        format!(
            "{}: no such file (the config -c names); did you mean {}?",
            typo.display(),
            dir.join("seedfall.json").display()
        )
    );
    let far = dir.join("bananas.json");
    assert_eq!(
        open(Some(&far)).unwrap_err().to_string(),
        format!("{}: no such file (the config -c names)", far.display())
    );
    let gone = dir.join("no-such-folder/seedfall.json");
    assert!(open(Some(&gone)).unwrap_err().to_string().ends_with("no-such-folder that -c names does not exist"));
    let (path, _) = open(Some(&dir)).unwrap();
    assert_eq!(path, dir.join("seedfall.json"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_real_dir_of_a_bare_config_name_is_a_folder_git_can_run_in() {
    assert_eq!(real_dir(Path::new("no-such-config.json")), Path::new("."));
    assert_eq!(real_dir(Path::new("/no/such/x.json")), Path::new("/no/such"));
    let here = std::env::current_dir().unwrap();
    assert_eq!(real_dir(Path::new("Cargo.toml")), here);
}

#[test]
fn a_schedule_under_seedfall_belongs_to_the_config_beside_it() {
    let dir = std::env::temp_dir().join(format!("seedfall-config-schedule-{}", std::process::id()));
    let state = dir.join(".seedfall");
    std::fs::create_dir_all(&state).unwrap();
    for name in ["seedfall.json", "seedfall.fixed.json", "kv.json"] {
        std::fs::write(dir.join(name), DESIGN_EXAMPLE).unwrap();
    }
    let of = |rel: &str| for_schedule(&state.join(rel));
    assert_eq!(of("seed-7.faults.json"), Some(dir.join("seedfall.json")));
    assert_eq!(of("seedfall.fixed.seed-7.faults.json"), Some(dir.join("seedfall.fixed.json")));
    assert_eq!(of("kv.seed-12.faults.json"), Some(dir.join("kv.json")));
    assert_eq!(of("explore/f1234abcd.faults.json"), Some(dir.join("seedfall.json")));
    assert_eq!(of("kv.explore/f1234abcd.faults.json"), Some(dir.join("kv.json")));
    assert_eq!(of("kv.cause/seed-3/m1-f2.faults.json"), Some(dir.join("kv.json")));
    assert_eq!(of("other.seed-1.faults.json"), None, "no other.json beside it");
    assert_eq!(for_schedule(&dir.join("seed-1.faults.json")), None, "not under .seedfall/");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn expect_horizon_says_the_workload_runs_to_the_horizon_by_design() {
    assert_eq!(parse_ok(&with("")).expect, Expect::default());
    assert!(parse_ok(&with(r#", "expect": {"horizon": true}"#)).expect.horizon);
    assert!(!parse_ok(&with(r#", "expect": {}"#)).expect.horizon);
    let e = error(&with(r#", "expect": {"horizn": true}"#));
    assert_eq!(e.to_string(), "unknown field `expect.horizn`; did you mean `horizon`?");
    assert_eq!((e.kind, e.field.as_str()), (ErrorKind::UnknownField, "expect.horizn"));
    assert_eq!(message(r#", "expect": {"horizon": 1}"#), "`expect.horizon` must be true or false, found 1");
    assert_eq!(message(r#", "expect": true"#), r#"`expect` must be an object like {"horizon": true}, found true"#);
    assert_eq!(message(r#", "expct": {}"#), "unknown field `expct`; did you mean `expect`?");
}
