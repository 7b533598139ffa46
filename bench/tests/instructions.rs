//! Smoke test of `zot-bench instructions`: the floor counted under
//! callgrind with tiny workloads yields a count per frame for both
//! scenarios. Skipped (with the reason printed) where valgrind is missing.
//! Nothing here asserts a count.

use zot_bench::instructions::{self, callgrind, InstrOptions};
use zot_bench::scenarios::ScenarioId;

#[test]
fn floor_is_counted_in_both_scenarios() {
    if let Err(e) = callgrind::find_valgrind() {
        eprintln!("skipped: {e}");
        return;
    }
    let args = [
        "--targets",
        "floor",
        "--profile",
        "debug",
        "--calls",
        "20,120",
        "--events",
        "100,300",
    ];
    let opts = InstrOptions::parse(args.map(String::from))
        .unwrap()
        .unwrap();
    let report = instructions::run(&opts).unwrap();
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
    for s in [ScenarioId::Pipelined, ScenarioId::Events] {
        let row = report
            .rows
            .iter()
            .find(|r| r.target == "floor" && r.scenario == s)
            .unwrap_or_else(|| panic!("no floor {s:?} row: {}", report.to_markdown()));
        assert!(row.runs[1].instructions > row.runs[0].instructions);
        assert!(row.per_frame.is_finite() && row.per_frame > 0.0);
        assert_eq!(row.ratio, None, "the floor has no baseline");
    }
    assert!(report.to_markdown().contains("| floor | event absorbed |"));
}
