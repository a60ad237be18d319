import Foundation
import GeoCore
import MapMatching
import Testing

/// The session's invariants (`invariantViolations()`) hold after every fix of real drives with
/// ground truth (Kubička et al. 2015's benchmark, `traces/kubicka`), for the committed path
/// alone and with the live recursion the online matcher runs; and the check is not vacuous:
/// the sessions held states.
@Test(arguments: ["00000001", "00000006", "00000011"])
func matchingSession_invariantsHoldAfterEveryFix(id: String) throws {
    let drive = try #require(try KubickaDrive.load(id))
    let matcher = try MapMatcher(graph: drive.graph)
    var session = matcher.session()
    var online = OnlineMatcher(matcher: matcher)
    var broken: [String] = []
    var mostUndecided = 0
    for (i, fix) in drive.track.enumerated() {
        session.append(fix)
        _ = online.match(fix)
        mostUndecided = max(mostUndecided, session.undecidedCount)
        if i % 3 == 0 { _ = session.takeCommitted() } // taking output is part of the life cycle
        broken += session.invariantViolations().map { "fix \(i): \($0)" }
        broken += online.invariantViolations().map { "fix \(i) (online): \($0)" }
        if broken.count > 5 { break }
    }
    session.finish()
    online.finish()
    broken += session.invariantViolations() + online.invariantViolations()
    #expect(broken.isEmpty, "\(broken.prefix(5))")
    #expect(mostUndecided > 1, "the sessions held undecided fixes")
}
