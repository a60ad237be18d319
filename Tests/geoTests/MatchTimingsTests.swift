import Testing
import TraceFiles

/// `geo match --timing`'s line from given phase times: the matching phase's seconds (6
/// decimals) and its rate (fixes ÷ seconds, no decimals), then every phase in order (3 decimals).
@Test func matchTimingsReport_namesTheMatchingTimeItsRateAndEveryPhase() {
    let phases: [(name: String, duration: Duration)] = [("graph load", .milliseconds(12)), ("index", .microseconds(3_500)),
                                                        ("matching", .milliseconds(250)), ("output", .microseconds(499))]
    #expect(MatchTimings.report(fixes: 1_000, phases: phases)
        == "matched 1000 fixes in 0.250000 s (4000 fixes/s); graph load 0.012 s, index 0.004 s, matching 0.250 s, output 0.000 s")
    // No matching phase (an online run): zero seconds, and the rate of a nanosecond floor.
    #expect(MatchTimings.report(fixes: 0, phases: [("graph load", .seconds(1))]) == "matched 0 fixes in 0.000000 s (0 fixes/s); graph load 1.000 s")
}

/// The stopwatch records each lap once, in order, with a duration that is not negative.
@Test func matchTimings_lapsInOrder() {
    var timings = MatchTimings()
    for name in ["graph load", "index", "matching"] { timings.lap(name) }
    #expect(timings.phases.map(\.name) == ["graph load", "index", "matching"])
    #expect(timings.phases.allSatisfy { $0.duration >= .zero })
    #expect(timings.report(fixes: 5).hasPrefix("matched 5 fixes in "))
}
