/// The session's structural invariants (issue 30; swift-collections' `_checkInvariants()`
/// pattern, as `RoadGraph` and `SpatialIndex` have): what the Viterbi lattice and the commit
/// rule keep true between fixes.
extension MatchingSession {
    /// The broken invariants, each named; empty when the session is sound.
    /// - Complexity: O(states held + fixes not yet taken).
    package func invariantViolations() -> [String] {
        var broken: [String] = []
        func check(_ holds: Bool, _ what: @autoclosure () -> String) { if !holds { broken.append(what()) } }
        check(steps.count <= matcher.parameters.maximumLag + 2,
              "\(steps.count) steps held, more than maximumLag \(matcher.parameters.maximumLag) + the anchor and the newest")
        if let anchorState {
            check(!steps.isEmpty && anchorState >= 0 && anchorState < steps[0].scores.count, "anchor state \(anchorState) outside the anchor step")
        }
        var lastIndex = -1
        for (j, step) in steps.enumerated() {
            let states = step.candidates.count + 1 // the off-road state last
            check(step.index > lastIndex, "step \(j): fix \(step.index) after fix \(lastIndex)")
            check(step.scores.count == states && step.parents.count == states,
                  "step \(j): \(step.scores.count) scores and \(step.parents.count) parents for \(states) states")
            check(step.scores.allSatisfy { !$0.isNaN && $0 <= 1e-9 }, "step \(j): a score is NaN or above the normalised maximum 0")
            check(step.liveScores.isEmpty || step.liveScores.count == states, "step \(j): \(step.liveScores.count) live scores for \(states) states")
            check(step.liveParents.count == step.liveScores.count, "step \(j): live parents and scores differ in number")
            check(step.liveScores.allSatisfy { !$0.isNaN && $0 <= 1e-9 }, "step \(j): a live score is NaN or above 0")
            check(step.rejoined.allSatisfy { $0 >= 0 && Int($0) < step.candidates.count }, "step \(j): a rejoined state is no candidate")
            if j > 0 {
                let before = steps[j - 1].scores.count
                check(step.parents.allSatisfy { $0 >= -1 && Int($0) < before }, "step \(j): a parent outside the step before")
                check(step.liveParents.allSatisfy { ($0 >= -1 || $0 == Self.restarted) && Int($0) < before },
                      "step \(j): a live parent outside the step before (nor -1, nor re-seeded)")
            }
            var followerIndex = step.index
            for follower in step.followers {
                check(follower.index > followerIndex, "step \(j): follower fix \(follower.index) out of order")
                followerIndex = follower.index
            }
            if j + 1 < steps.count { check(followerIndex < steps[j + 1].index, "step \(j): a follower after the next step's fix") }
            lastIndex = followerIndex
        }
        check(zip(committedPoints, committedPoints.dropFirst()).allSatisfy { $0.index < $1.index }, "committed points out of fix order")
        return broken
    }

    #if GEO_INTERNAL_CHECKS
    /// Traps, naming the first broken invariant (see `invariantViolations()`); compiled in by
    /// `GEO_INTERNAL_CHECKS=1`.
    @inline(never)
    package func _checkInvariants() {
        if let first = invariantViolations().first { preconditionFailure("MatchingSession: \(first)") }
    }
    #else
    /// Checks nothing: build with GEO_INTERNAL_CHECKS=1 to verify the session's invariants.
    @inline(__always)
    package func _checkInvariants() {}
    #endif
}
